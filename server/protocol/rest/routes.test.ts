import { existsSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { buildPath, type RouteSpec } from "./define.ts";
import { routes } from "./index.ts";
import { snapshotSchema } from "./conversations.ts";
import { emptySnapshot } from "../../testing/empty-snapshot.ts";

const all: [string, RouteSpec][] = Object.entries(routes).flatMap(([group, specs]) =>
  Object.entries(specs).map(([name, spec]): [string, RouteSpec] => [`${group}.${name}`, spec]),
);

/**
 * The browser's routes, served by Next's route files; the automation API's (`v1`) are
 * served by the custom server (server/api-v1), whose handler table is typed by them.
 */
const served = all.filter(([name]) => !name.startsWith("v1."));

/** `/api/conversations/:conversationId/messages` → the Next route file that serves it */
function routeFile(path: string): string {
  if (path.startsWith("/api/auth/")) return "app/api/auth/[...all]/route.ts";
  return `app${path.replace(/:(\w+)/g, "[$1]")}/route.ts`;
}

describe("the route table", () => {
  it("names each method and path once", () => {
    const keys = all.map(([, spec]) => `${spec.method} ${spec.path}`);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it.each(served)("%s is served by a route file exporting its method", (_, spec) => {
    const file = routeFile(spec.path);
    expect(existsSync(file), file).toBe(true);
    const source = readFileSync(file, "utf8");
    if (!spec.path.startsWith("/api/auth/")) {
      expect(source).toMatch(new RegExp(`export (const|async function) ${spec.method}\\b`));
    }
  });

  // better-auth's endpoints and file downloads (no JSON answer) have no schema to use
  const jsonRoutes = served.filter(([, spec]) => !spec.path.startsWith("/api/auth/") && !(spec.method === "GET" && spec.response === null));
  it.each(jsonRoutes)("%s: its handler uses the table", (name, spec) => {
    const source = readFileSync(routeFile(spec.path), "utf8");
    const [group, key] = name.split(".");
    // the handler names its spec, so the body it reads and the answer it gives are the table's
    expect(source).toMatch(new RegExp(`routes\\.${group}\\.${key}\\b|spec = routes\\.${group}\\.${key}\\b`));
  });

  it("has no Next route files for the automation API, which the custom server answers before Next", () => {
    expect(all.filter(([name]) => name.startsWith("v1.")).length).toBeGreaterThan(0);
    expect(existsSync("app/api/v1")).toBe(false);
  });
});

/** Every fixed-shape object in a JSON schema that lets keys it does not name through, by its path. */
function openObjects(node: unknown, at = "body"): string[] {
  if (Array.isArray(node)) return node.flatMap((child, i) => openObjects(child, `${at}[${i}]`));
  if (typeof node !== "object" || node === null) return [];
  const schema = node as Record<string, unknown>;
  const here = schema.properties !== undefined && schema.additionalProperties !== false ? [at] : [];
  return [...here, ...Object.entries(schema).flatMap(([key, child]) => openObjects(child, `${at}.${key}`))];
}

describe("request bodies", () => {
  // better-auth reads its own bodies; a plan's keys are checked by the core's strict plan schema
  const unchecked = new Set(["v1.submitPlan"]);
  const bodies = all.filter(
    (entry): entry is [string, RouteSpec & { body: z.ZodType }] =>
      typeof entry[1].body === "object" && !entry[1].path.startsWith("/api/auth/") && !unchecked.has(entry[0]),
  );

  it.each(bodies)("%s refuses keys it does not know (400 naming them), so a misspelt field is not silently dropped", (_, spec) => {
    expect(openObjects(z.toJSONSchema(spec.body, { io: "input", unrepresentable: "any" }))).toEqual([]);
  });

  it("names the unknown keys", () => {
    const parsed = routes.admin.updateAgent.body.safeParse({
      handle: "writer",
      name: "Writer",
      role: "sub_agent",
      systemPrompt: "",
      model: "offline",
      allowedTools: [],
      skills: [],
      concurrency: 2,
      temperature: 0.2,
    });
    expect(parsed.error?.issues).toEqual([expect.objectContaining({ code: "unrecognized_keys", keys: ["temperature"] })]);
  });
});

describe("buildPath", () => {
  it("fills each parameter, URL-encoded", () => {
    expect(buildPath("/api/conversations/:conversationId/members/:userId", { conversationId: "c 1", userId: "a/b?" })).toBe(
      "/api/conversations/c%201/members/a%2Fb%3F",
    );
    expect(
      buildPath("/api/conversations/:conversationId/plans/:planId/steps/:stepIndex", { conversationId: "c", planId: "p", stepIndex: 3 }),
    ).toBe("/api/conversations/c/plans/p/steps/3");
  });

  it("refuses a missing or empty parameter, naming it", () => {
    expect(() => buildPath("/api/tokens/:tokenId", { tokenId: "" })).toThrow('the path parameter "tokenId" is missing');
    expect(() => buildPath("/api/tokens/:tokenId", {} as { tokenId: string })).toThrow('"tokenId"');
  });
});

describe("response schemas", () => {
  it("a snapshot without commanderReplies, or with a step of an unknown status, is not the contract", () => {
    const snapshot = emptySnapshot("c");
    expect(snapshotSchema.safeParse(snapshot).success).toBe(true);
    expect(snapshotSchema.safeParse({ ...snapshot, conversation: { id: "c", title: "t" } }).success).toBe(false);
    const run = {
      id: "r",
      conversationId: "c",
      agentHandle: null,
      planId: null,
      stepIndex: null,
      kind: "gossip",
      attempt: 1,
      status: "running",
      model: "offline",
      startedAt: null,
      endedAt: null,
      error: null,
      tokensIn: 0,
      tokensOut: 0,
      cost: 0,
    };
    const parsed = snapshotSchema.safeParse({ ...snapshot, runs: [run] });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.path).toEqual(["runs", 0, "kind"]);
  });
});
