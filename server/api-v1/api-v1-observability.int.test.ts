/**
 * The automation API's step detail (execution log with its model timings, runs): what
 * the server-level benchmark reads once a plan has ended.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "@/server/config/config.ts";
import { setRuntime } from "@/server/runtime.ts";
import { createExecutorFixture, type ExecutorFixture } from "@/server/executor/testing/executor-fixture.ts";
import { directiveScript } from "@/server/executor/testing/directive-script.ts";
import { API_USER_EMAIL } from "@/server/access/actor.ts";
import { v1Handlers as v1 } from "./handlers.ts";

const TOKEN = "test-token-0123456789abcdef";
let fixture: ExecutorFixture;

const request = (init: { method?: string; body?: unknown; token?: string | null } = {}) =>
  new Request("http://baton.test/api/v1", {
    method: init.method ?? (init.body === undefined ? "GET" : "POST"),
    headers: { ...(init.token === null ? {} : { authorization: `Bearer ${init.token ?? TOKEN}` }), "content-type": "application/json" },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
const step = (id: string, index: string, token?: string | null) => v1.stepDetail(request({ token }), { id, index });

beforeAll(async () => {
  fixture = await createExecutorFixture({ script: directiveScript });
  const apiUser = await fixture.db.prisma.user.findUniqueOrThrow({ where: { email: API_USER_EMAIL } });
  setRuntime({
    config: loadConfig({ BATON_API_TOKEN: TOKEN }),
    prisma: fixture.db.prisma,
    sql: fixture.db.sql,
    app: fixture.app,
    apiUserId: apiUser.id,
  });
});

afterAll(async () => {
  await fixture?.close();
});

describe("GET /api/v1/plans/{id}/steps/{index}", () => {
  it("returns a step's execution log and runs, to the conversation's members only", async () => {
    const { id: conversationId } = await (
      await v1.createConversation(request({ body: { title: "Measured", agents: ["researcher"] } }), {})
    ).json();
    const submitted = await v1.submitPlan(
      request({ body: { title: "One step", steps: [{ index: 1, title: "Look", assignee: "researcher", input: "look" }] } }),
      { id: conversationId },
    );
    const plan = await submitted.json();
    await fixture.waitForPlan(plan.id);

    const detail = await step(plan.id, "1");
    expect(detail.status).toBe(200);
    const body = await detail.json();
    expect(body.step.index).toBe(1);
    expect(body.log.map((entry: { phase: string }) => entry.phase)).toContain("dispatch");
    expect(body.runs).toHaveLength(1);
    expect(body.runs[0].endedAt).not.toBeNull();

    expect((await step(plan.id, "1", null)).status).toBe(401);
    expect((await step(plan.id, "0")).status).toBe(400);
    expect((await step(plan.id, "2")).status).toBe(404);
    expect((await step("no-such-plan", "1")).status).toBe(404);

    // a plan in a conversation the API's user is not in: the same 404 as a missing one
    const hidden = await fixture.services.createConversation({ title: "Not the API's", agentHandles: ["researcher"] });
    const other = await fixture.executor.submitPlan({
      conversationId: hidden.id,
      raw: { title: "Private", steps: [{ index: 1, title: "x", assignee: "researcher", input: "x" }] },
    });
    const refused = await step(other.id, "1");
    expect(refused.status).toBe(404);
    expect(await refused.text()).not.toContain("Private");
  });
});
