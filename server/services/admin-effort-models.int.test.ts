/**
 * The admin's effort mapping (admin-effort-models.ts) on a real database: admins only,
 * every model one this server can run (a configured provider's, or offline:<name>),
 * and what was saved is what the executor reads.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../db/testing/test-database.ts";
import { createModelRegistry } from "../agents/model-registry.ts";
import { hasErrorCode } from "../protocol/errors.ts";
import { readEffortModels } from "../adapters/prisma/workspace-settings.ts";
import { routes } from "../protocol/rest/index.ts";
import { getEffortModels, setEffortModels } from "./admin-effort-models.ts";
import type { Actor } from "../access/actor.ts";

let db: TestDatabase;
const admin: Actor = { id: "admin-1", role: "admin" };
const member: Actor = { id: "member-1", role: "member" };
// OpenAI has a key here, Anthropic none
const models = createModelRegistry({ env: { OPENAI_API_KEY: "sk-test" } });

beforeAll(async () => {
  db = await createTestDatabase({ kind: "embedded" });
});
afterAll(() => db?.close());

const refused = async (promise: Promise<unknown>) => {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected a refusal");
};

it("starts empty, saves a mapping the executor then reads, and replaces it whole", async () => {
  expect(await getEffortModels(db.prisma, { actor: admin })).toEqual({});
  const saved = await setEffortModels(db.prisma, { actor: admin, input: { light: "offline:small", deep: "openai:gpt-deep" }, models });
  expect(saved).toEqual({ light: "offline:small", deep: "openai:gpt-deep" });
  expect(await readEffortModels(db.prisma)).toEqual(saved);
  await setEffortModels(db.prisma, { actor: admin, input: { deep: "offline:deep" }, models });
  expect(await getEffortModels(db.prisma, { actor: admin })).toEqual({ deep: "offline:deep" });
  // each change is in the audit log, with what each level now runs on
  const audit = await db.prisma.auditEvent.findMany({ where: { action: "workspace.effort_models_changed" }, orderBy: { id: "asc" } });
  expect(audit.map((row) => [row.actorId, row.targetKind, row.detail])).toEqual([
    ["admin-1", "workspace", { light: "offline:small", deep: "openai:gpt-deep" }],
    ["admin-1", "workspace", { light: null, deep: "offline:deep" }],
  ]);
});

it("refuses a model this server cannot run, naming the level, and keeps the mapping", async () => {
  const error = await refused(setEffortModels(db.prisma, { actor: admin, input: { light: "anthropic:claude-haiku-4-5" }, models }));
  expect(hasErrorCode(error, "invalid_input")).toBe(true);
  expect((error as Error).message).toMatch(/^light: .*ANTHROPIC_API_KEY/);
  expect(await refused(setEffortModels(db.prisma, { actor: admin, input: { deep: "gemini:pro" }, models }))).toBeInstanceOf(Error);
  expect(await readEffortModels(db.prisma)).toEqual({ deep: "offline:deep" });
  // a refused change is not in the audit log
  expect(await db.prisma.auditEvent.count({ where: { action: "workspace.effort_models_changed" } })).toBe(2);
});

it("is for admins only", async () => {
  expect(hasErrorCode(await refused(getEffortModels(db.prisma, { actor: member })), "forbidden")).toBe(true);
  expect(hasErrorCode(await refused(setEffortModels(db.prisma, { actor: null, input: {}, models })), "unauthenticated")).toBe(true);
});

it("the route's body takes only the two levels, each a non-empty model id", () => {
  const body = routes.admin.setEffortModels.body;
  expect(body.safeParse({ light: "offline:a" }).success).toBe(true);
  expect(body.safeParse({ standard: "offline:a" }).success).toBe(false);
  expect(body.safeParse({ deep: " " }).success).toBe(false);
});

it("refuses a model id the database cannot store, naming the level, even from a configured provider", async () => {
  // OpenAI has a key, so the model check alone takes any name after "openai:"
  for (const model of ["openai:gpt\u0000", "openai:\ud800gpt"]) {
    expect(routes.admin.setEffortModels.body.safeParse({ light: model }).success).toBe(false);
    const error = await refused(setEffortModels(db.prisma, { actor: admin, input: { light: model }, models }));
    expect(hasErrorCode(error, "invalid_input")).toBe(true);
    expect((error as Error).message).toMatch(/^light: must not contain NUL/);
  }
  expect(await readEffortModels(db.prisma)).toEqual({ deep: "offline:deep" });
});
