/**
 * Fuzzes every API route handler under app/api (found on disk, so a new route is
 * covered without editing this file) and every route of the automation API (its
 * route table, answered through the custom server's dispatcher) in-process, signed in as an admin who is a
 * member of the conversation, with the API token, or with a signed webhook delivery:
 * random and hostile bodies, content types and path parameters. No answer may be a
 * 5xx, a 4xx must name what is wrong, and a refused request must leave every table
 * exactly as it was. BATON_FUZZ_RUNS sets the runs per route handler (default 12).
 */
import { readdirSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRouteHarness, signDelivery, TEST_API_TOKEN, type RouteHarness } from "@/server/http/testing/route-harness.ts";
import { hostileBody, hostileParam, type FuzzBody } from "@/server/http/testing/hostile-input.ts";
import { dispatchV1 } from "@/server/api-v1/serve-v1.ts";
import { v1Routes } from "@/server/protocol/rest/v1.ts";

const RUNS = Number(process.env.BATON_FUZZ_RUNS ?? 12);
const MAX_BODY_BYTES = 64 * 1024;
const API_DIR = path.join(process.cwd(), "app/api");
const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;

interface RouteFile {
  /** e.g. /api/conversations/[conversationId]/messages */
  template: string;
  file: string;
}

function routeFiles(dir = API_DIR): RouteFile[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name === "route.ts")
    .map((entry) => {
      const file = path.join(entry.parentPath, entry.name);
      return { file, template: "/" + path.relative(path.join(process.cwd(), "app"), entry.parentPath).split(path.sep).join("/") };
    })
    .sort((a, b) => a.template.localeCompare(b.template));
}

let harness: RouteHarness;
/** real values for each path parameter, so requests get past "not found" to the body */
let realParams: Record<string, string>;
type Handler = (request: Request, context: { params: Promise<Record<string, string | string[]>> }) => Promise<Response>;

/** A digest of every table, row by row : what "nothing stored changed" is checked against. */
async function snapshot(): Promise<Record<string, string>> {
  const prisma = harness.fixture.db.prisma;
  const tables = await prisma.$queryRawUnsafe<{ name: string }[]>(
    `SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' AND table_name <> '_prisma_migrations' ORDER BY 1`,
  );
  const parts = tables.map(
    ({ name }) => `SELECT '${name}' AS name, md5(coalesce(string_agg(t::text, '|' ORDER BY t::text), '')) AS digest FROM "${name}" t`,
  );
  const rows = await prisma.$queryRawUnsafe<{ name: string; digest: string }[]>(parts.join(" UNION ALL "));
  return Object.fromEntries(rows.map((row) => [row.name, row.digest]));
}

beforeAll(async () => {
  harness = await createRouteHarness({ BATON_MAX_BODY_BYTES: String(MAX_BODY_BYTES) });
  const { fixture } = harness;
  const conversationId = fixture.conversationId;
  const plan = await fixture.executor.submitPlan({
    conversationId,
    raw: {
      title: "fuzzed",
      steps: [
        { index: 1, title: "work", assignee: "writer", input: "x" },
        { index: 2, title: "ask", assignee: "user", input: "what now?" },
      ],
    },
  });
  await fixture.waitForPlan(plan.id, ["paused", "completed", "failed"]);
  const form = await fixture.db.prisma.form.findFirstOrThrow({ where: { conversationId } });
  const artifact = await fixture.services.saveUpload({
    conversationId,
    actor: { id: harness.adminId, role: "admin" },
    name: "a.txt",
    mediaType: "text/plain",
    bytes: new Uint8Array([104, 105]),
  });
  const agent = await fixture.db.prisma.agent.findFirstOrThrow({ where: { handle: "writer" } });
  realParams = { conversationId, planId: plan.id, formId: form.id, artifactId: artifact.id, agentId: agent.id, stepIndex: "1", index: "1" };
});

afterAll(async () => {
  await harness?.close();
});

/** the real value of a path parameter ([id] is a conversation, or a plan under /plans/) */
function realParam(name: string, template: string): string | string[] {
  if (name === "...all") return ["sign-in", "email"];
  if (name === "id") return template.startsWith("/api/v1/plans/") ? realParams.planId : realParams.conversationId;
  return realParams[name] ?? "unknown";
}

type Auth = "session" | "token" | "signed" | "none";

/** A lone surrogate has no percent-encoding; the handler still receives it as the decoded parameter. */
const encodeSegment = (value: string) => {
  try {
    return encodeURIComponent(value);
  } catch {
    return "%ED%A0%80";
  }
};

function buildRequest(input: {
  template: string;
  method: string;
  params: Record<string, string | string[]>;
  body: FuzzBody | null;
  auth: Auth;
  query: string;
}): Request {
  const pathname = input.template.replace(/\[(\.\.\.)?([^\]]+)\]/g, (_, rest, name) => {
    const value = input.params[rest ? `...${name}` : name];
    return Array.isArray(value) ? value.map(encodeSegment).join("/") : encodeSegment(value);
  });
  const headers = new Headers();
  let body: BodyInit | undefined;
  if (input.body !== null) {
    body = input.body.body;
    if (input.body.contentType !== null) headers.set("content-type", input.body.contentType);
  }
  if (input.auth === "session") headers.set("cookie", harness.cookie);
  if (input.auth === "token") headers.set("authorization", `Bearer ${TEST_API_TOKEN}`);
  if (input.auth === "signed") {
    const timestamp = Math.floor(Date.now() / 1000);
    const delivery = `fuzz-${Math.random().toString(36).slice(2)}`;
    const text = typeof body === "string" ? body : "";
    headers.set("x-baton-timestamp", String(timestamp));
    headers.set("x-baton-delivery", delivery);
    headers.set("x-baton-signature", signDelivery({ timestamp, delivery, path: pathname, body: text }));
  }
  return new Request(`http://baton.test${pathname}${input.query}`, { method: input.method, headers, body });
}

const routes = routeFiles();
/** every exported handler of every route file: a new route or method joins the fuzz by existing */
const fileCases = (
  await Promise.all(
    routes.map(async (route) => {
      const module = (await import(pathToFileURL(route.file).href)) as Partial<Record<(typeof METHODS)[number], Handler>>;
      return METHODS.filter((method) => typeof module[method] === "function").map((method) => ({
        template: route.template,
        method,
        handler: module[method]!,
      }));
    }),
  )
).flat();
/** every route of the automation API's table, through its dispatcher (which decodes the path itself) */
const v1Cases = Object.values(v1Routes).map((spec) => ({
  template: spec.path.replace(/:(\w+)/g, "[$1]"),
  method: spec.method,
  handler: (request: Request) => dispatchV1(request),
}));
const cases = [...fileCases, ...v1Cases].sort((a, b) => a.template.localeCompare(b.template) || a.method.localeCompare(b.method));

describe("fuzzing every API route", () => {
  it("finds the route handlers on disk", () => {
    expect(routes.length).toBeGreaterThanOrEqual(20);
    expect(cases.map((route) => route.template)).toContain("/api/v1/conversations/[id]/reactions");
    expect(cases.map((route) => route.template)).toContain("/api/conversations/[conversationId]/messages");
    expect(cases.length).toBeGreaterThanOrEqual(routes.length + Object.keys(v1Routes).length);
  });

  it("sees a change to any stored row", async () => {
    const before = await snapshot();
    expect(Object.keys(before)).toEqual(
      expect.arrayContaining(["Conversation", "Message", "Plan", "PlanStep", "WebhookDelivery", "user", "session"]),
    );
    await harness.fixture.db.prisma.agent.update({ where: { handle: "writer" }, data: { systemPrompt: "changed" } });
    const changed = await snapshot();
    expect(changed.Agent).not.toBe(before.Agent);
    expect({ ...changed, Agent: before.Agent }).toEqual(before);
  });

  it.each(cases)("$method $template: no 5xx, and a refusal changes nothing", async ({ template, method, handler }) => {
    const names = [...template.matchAll(/\[(\.\.\.)?([^\]]+)\]/g)].map((match) => (match[1] ? `...${match[2]}` : match[2]));
    const auths: Auth[] = template.startsWith("/api/v1/")
      ? template.endsWith("/reactions")
        ? ["token", "signed", "none"]
        : ["token", "none"]
      : template.startsWith("/api/auth/")
        ? ["none"]
        : ["session", "session", "none"];
    const paramValues = fc.tuple(
      ...names.map((name) =>
        fc.oneof({ weight: 3, arbitrary: fc.constant(realParam(name, template)) }, { weight: 1, arbitrary: hostileParam() }),
      ),
    );
    const query = fc.oneof(
      fc.constant(""),
      hostileParam().map((value) => `?after=${encodeSegment(value)}&limit=${encodeSegment(value)}`),
    );
    const body = method === "GET" ? fc.constant(null) : hostileBody(MAX_BODY_BYTES);

    let before = await snapshot();
    await fc.assert(
      fc.asyncProperty(paramValues, fc.constantFrom(...auths), body, query, async (values, auth, fuzzBody, search) => {
        const params = Object.fromEntries(names.map((name, i) => [name.replace("...", ""), values[i]]));
        const request = buildRequest({
          template,
          method,
          params: Object.fromEntries(names.map((name, i) => [name, values[i]])),
          body: fuzzBody,
          auth,
          query: search,
        });
        const response = await handler(request, { params: Promise.resolve(params) });
        const label = `${method} ${request.url} (${auth}, ${fuzzBody?.kind ?? "no body"}) answered ${response.status}`;
        expect(response.status, label).toBeLessThan(500);
        if (response.status >= 400) {
          const answer = (await response.json().catch(() => null)) as { error?: { message?: unknown } } | null;
          // better-auth answers an unknown auth path with an empty 404; every route of ours names the problem
          if (!template.startsWith("/api/auth/")) {
            expect(
              typeof answer?.error?.message === "string" && answer.error.message.length > 0,
              `${label} without naming what is wrong`,
            ).toBe(true);
          }
          expect(await snapshot(), `${label} but changed what is stored`).toEqual(before);
        } else {
          await response.body?.cancel();
          await harness.fixture.executor.idle();
          before = await snapshot();
        }
      }),
      { numRuns: RUNS },
    );
  });
});
