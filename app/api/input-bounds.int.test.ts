/**
 * Bounded input on the real route handlers: one body cap (413 before authentication,
 * also for a streamed body), a JSON depth cap, JSON content types only, text without
 * NUL or unpaired surrogates, and integers that fit their columns — each a 4xx that
 * names what is wrong, never a 500, and nothing stored.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { countingStream, createRouteHarness, TEST_API_TOKEN, type RouteHarness } from "@/server/http/testing/route-harness.ts";
import { MAX_INT32 } from "@/server/core/text.ts";
import * as conversations from "./conversations/route.ts";
import * as messages from "./conversations/[conversationId]/messages/route.ts";
import * as planControl from "./conversations/[conversationId]/plans/[planId]/route.ts";
import * as stepDetail from "./conversations/[conversationId]/plans/[planId]/steps/[stepIndex]/route.ts";
import * as adminAgent from "./admin/agents/[agentId]/route.ts";
import { dispatchV1 } from "@/server/api-v1/serve-v1.ts";

let harness: RouteHarness;
let conversationId: string;
let planId: string;

type Handler = (request: Request, context: { params: Promise<Record<string, string>> }) => Promise<Response>;

function call(
  handler: Handler,
  input: {
    path: string;
    params?: Record<string, string>;
    body?: BodyInit;
    auth?: "session" | "token" | "none";
    headers?: Record<string, string>;
    method?: string;
  },
): Promise<Response> {
  const auth = input.auth ?? (input.path.startsWith("/api/v1/") ? "token" : "session");
  const headers: Record<string, string> = { "content-type": "application/json", ...input.headers };
  if (auth === "session") headers.cookie = harness.cookie;
  if (auth === "token") headers.authorization = `Bearer ${TEST_API_TOKEN}`;
  return handler(
    new Request(`http://baton.test${input.path}`, {
      method: input.method ?? (input.body === undefined ? "GET" : "POST"),
      headers,
      body: input.body,
      // @ts-expect-error undici needs duplex for a streamed body; lib.dom does not know it
      duplex: "half",
    }),
    { params: Promise.resolve(input.params ?? {}) },
  );
}

async function expectError(response: Promise<Response> | Response, status: number, pattern: RegExp) {
  const settled = await response;
  const body = await settled.json();
  expect({ status: settled.status, message: body.error?.message }).toEqual({ status, message: expect.stringMatching(pattern) });
}

const counts = async () => {
  const prisma = harness.fixture.db.prisma;
  return { conversations: await prisma.conversation.count(), messages: await prisma.message.count(), plans: await prisma.plan.count() };
};

beforeAll(async () => {
  harness = await createRouteHarness({ BATON_MAX_BODY_BYTES: String(256 * 1024) });
  conversationId = harness.fixture.conversationId;
  const plan = await harness.fixture.executor.submitPlan({
    conversationId,
    raw: { title: "one", steps: [{ index: 1, title: "a", assignee: "writer", input: "x" }] },
  });
  planId = plan.id;
  await harness.fixture.waitForPlan(planId);
});

afterAll(async () => {
  await harness?.close();
});

describe("one body cap for every route", () => {
  it("refuses a streamed body past the cap with 413 before authentication, reading little of it", async () => {
    const body = countingStream(16 * 1024, 50 * 1024 * 1024);
    await expectError(call(conversations.POST, { path: "/api/conversations", body: body.stream, auth: "none" }), 413, /256 KB/);
    expect(body.pulled()).toBeLessThanOrEqual(256 * 1024 + 2 * 16 * 1024);
  });

  it("refuses a declared Content-Length past the cap before authentication", async () => {
    const body = countingStream(16 * 1024, 50 * 1024 * 1024);
    const response = call(dispatchV1, {
      path: `/api/v1/conversations/${conversationId}/messages`,
      params: { id: conversationId },
      body: body.stream,
      auth: "none",
      headers: { "content-length": String(50 * 1024 * 1024) },
    });
    await expectError(response, 413, /256 KB/);
    expect(body.pulled()).toBeLessThanOrEqual(2 * 16 * 1024);
  });

  it("accepts a body just under the cap", async () => {
    const text = "x".repeat(19_000);
    const response = await call(messages.POST as Handler, {
      path: `/api/conversations/${conversationId}/messages`,
      params: { conversationId },
      body: JSON.stringify({ body: text }),
    });
    expect(response.status).toBe(201);
    await harness.fixture.executor.idle();
  });
});

describe("JSON bodies", () => {
  it("refuses nesting deeper than the cap, naming it", async () => {
    const deep = `{"source":"ci","target":{"agent":"writer"},"payload":${"[".repeat(100_000)}${"]".repeat(100_000)}}`;
    const before = await counts();
    await expectError(
      call(dispatchV1, {
        path: `/api/v1/conversations/${conversationId}/reactions`,
        params: { id: conversationId },
        body: deep,
      }),
      400,
      /nest/,
    );
    expect(await counts()).toEqual(before);
  });

  it("refuses a body that is not JSON by its content type with 415", async () => {
    const response = call(conversations.POST, {
      path: "/api/conversations",
      body: JSON.stringify({ title: "x" }),
      headers: { "content-type": "text/plain" },
    });
    await expectError(response, 415, /application\/json/);
  });

  it("refuses a __proto__ key", async () => {
    await expectError(
      call(conversations.POST, { path: "/api/conversations", body: '{"title":"x","__proto__":{"admin":true}}' }),
      400,
      /__proto__/,
    );
  });

  it("refuses bytes that are not UTF-8", async () => {
    const bytes = new Uint8Array([0x7b, 0x22, 0x74, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]);
    await expectError(call(conversations.POST, { path: "/api/conversations", body: bytes }), 400, /UTF-8/);
  });
});

describe("text fields", () => {
  it.each([
    ["NUL", "hello\u0000world"],
    ["a lone surrogate", "hello\ud800"],
  ])("refuse %s with 400 naming the field, on the browser's and the API's routes", async (_, bad) => {
    const before = await counts();
    await expectError(
      call(messages.POST as Handler, {
        path: `/api/conversations/${conversationId}/messages`,
        params: { conversationId },
        body: JSON.stringify({ body: bad }),
      }),
      400,
      /body/,
    );
    await expectError(
      call(dispatchV1, {
        path: `/api/v1/conversations/${conversationId}/messages`,
        params: { id: conversationId },
        body: JSON.stringify({ body: bad }),
      }),
      400,
      /body/,
    );
    await expectError(call(conversations.POST, { path: "/api/conversations", body: JSON.stringify({ title: bad }) }), 400, /title/);
    const reaction = JSON.stringify({ source: "ci", target: { agent: "writer" }, payload: { log: bad } });
    await expectError(
      call(dispatchV1, {
        path: `/api/v1/conversations/${conversationId}/reactions`,
        params: { id: conversationId },
        body: reaction,
      }),
      400,
      /payload\.log/,
    );
    expect(await counts()).toEqual(before);
  });
});

describe("integers fit their columns", () => {
  const tooBig = MAX_INT32 + 1;

  it("refuses after=2^31 on the event log", async () => {
    await expectError(
      call(dispatchV1, {
        path: `/api/v1/conversations/${conversationId}/events?after=${tooBig}`,
        params: { id: conversationId },
      }),
      400,
      /after/,
    );
  });

  it("refuses a huge step index in a URL", async () => {
    for (const index of [String(tooBig), "1e300"]) {
      await expectError(
        call(stepDetail.GET as Handler, {
          path: `/api/conversations/${conversationId}/plans/${planId}/steps/${index}`,
          params: { conversationId, planId, stepIndex: index },
        }),
        400,
        /stepIndex/,
      );
    }
  });

  it("refuses a huge step index in a control", async () => {
    await expectError(
      call(planControl.POST as Handler, {
        path: `/api/conversations/${conversationId}/plans/${planId}`,
        params: { conversationId, planId },
        body: JSON.stringify({ action: "retry", stepIndex: tooBig }),
      }),
      400,
      /stepIndex/,
    );
  });

  it.each([
    ["max_parallel", { max_parallel: tooBig }],
    ["budget.max_tokens", { budget: { max_tokens: tooBig } }],
  ])("refuses a plan's %s of 2^31 with 422, storing nothing", async (field, extra) => {
    const before = await counts();
    const response = await call(dispatchV1, {
      path: `/api/v1/conversations/${conversationId}/plans`,
      params: { id: conversationId },
      body: JSON.stringify({ title: "big", ...extra, steps: [{ index: 1, title: "a", assignee: "writer", input: "x" }] }),
    });
    expect(response.status).toBe(422);
    expect((await response.json()).error.issues).toEqual([expect.objectContaining({ field })]);
    expect(await counts()).toEqual(before);
  });
});

describe("plan size", () => {
  it("refuses a plan far past the step limit with one issue naming the limit, storing nothing", async () => {
    const steps = Array.from({ length: 3000 }, (_, i) => ({
      index: i + 1,
      title: `step ${i + 1}`,
      assignee: "writer",
      input: `do ${i + 1}`,
    }));
    const body = JSON.stringify({ title: "huge", steps });
    expect(body.length).toBeLessThan(256 * 1024); // under the body cap: the plan check is what refuses it
    const before = await counts();
    const response = await call(dispatchV1, {
      path: `/api/v1/conversations/${conversationId}/plans`,
      params: { id: conversationId },
      body,
    });
    expect(response.status).toBe(422);
    expect((await response.json()).error.issues).toEqual([
      { stepIndex: null, field: "steps", message: "the plan has 3000 steps; the limit is 500" },
    ]);
    expect(await counts()).toEqual(before);
  });
});

describe("unknown keys", () => {
  it("PUT /api/admin/agents/:id with a key it does not know is 400 naming it, and nothing changes", async () => {
    const prisma = harness.fixture.db.prisma;
    const writer = await prisma.agent.findUniqueOrThrow({ where: { handle: "writer" } });
    const input = {
      handle: writer.handle,
      name: "Renamed writer",
      role: writer.role,
      systemPrompt: writer.systemPrompt,
      model: writer.model,
      allowedTools: writer.allowedTools,
      skills: writer.skills,
      concurrency: writer.concurrency,
    };
    const put = (body: object) =>
      call(adminAgent.PUT as Handler, {
        path: `/api/admin/agents/${writer.id}`,
        params: { agentId: writer.id },
        method: "PUT",
        body: JSON.stringify(body),
      });
    await expectError(put({ ...input, temperature: 0.2, Model: "openai:gpt-4.1" }), 400, /Unrecognized keys: "temperature", "Model"/);
    expect(await prisma.agent.findUniqueOrThrow({ where: { id: writer.id } })).toEqual(writer);
    // the browser's own shape is still accepted
    expect((await put(input)).status).toBe(200);
    expect((await prisma.agent.findUniqueOrThrow({ where: { id: writer.id } })).name).toBe("Renamed writer");
  });

  it("the automation API refuses a misspelt key instead of dropping it, storing nothing", async () => {
    const before = await counts();
    await expectError(
      call(dispatchV1, {
        path: `/api/v1/conversations/${conversationId}/messages`,
        params: { id: conversationId },
        body: JSON.stringify({ body: "hello @writer", mention: ["writer"] }),
      }),
      400,
      /Unrecognized key: "mention"/,
    );
    const plan = await call(dispatchV1, {
      path: `/api/v1/conversations/${conversationId}/plans`,
      params: { id: conversationId },
      body: JSON.stringify({ title: "typo", max_paralel: 2, steps: [{ index: 1, title: "a", assignee: "writer", input: "x" }] }),
    });
    expect(plan.status).toBe(422);
    expect(JSON.stringify(await plan.json())).toMatch(/max_paralel/);
    expect(await counts()).toEqual(before);
  });
});
