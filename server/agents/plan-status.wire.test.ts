/**
 * The commander looks before it decides: plan_status returns a step's status, attempts,
 * summary, failure reason and (bounded) execution log, through both wire formats.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startFakeModelServer, type FakeModelServer, type RecordedRequest } from "./testing/fake-model-server.ts";
import { MemoryPlanStatusReader } from "./memory-stores.ts";
import { PLAN_STATUS_LOG_ENTRIES } from "./plan-status.ts";
import { agentProfile, recordingSink, runRequest, testRuntime } from "./testing/agent-fixture.ts";

(globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;

const MODEL = { openai: "openai:gpt-test", anthropic: "anthropic:claude-test" } as const;

function toolNames(request: RecordedRequest): string[] {
  const tools = (request.body.tools ?? []) as { name?: string; function?: { name: string } }[];
  return tools.map((entry) => entry.function?.name ?? entry.name ?? "");
}

describe.each(["openai", "anthropic"] as const)("plan_status through the %s wire format", (format) => {
  let server: FakeModelServer;
  beforeAll(async () => {
    server = await startFakeModelServer();
  });
  afterAll(() => server.close());
  beforeEach(() => server.reset());

  function setup() {
    const plans = new MemoryPlanStatusReader();
    plans.plans.push({
      conversationId: "conv-1",
      id: "plan-1",
      title: "Launch",
      status: "running",
      steps: [
        {
          index: 1,
          title: "Research",
          assignee: "researcher",
          status: "done",
          attempts: 1,
          summary: "Found 3 vendors.",
          failureReason: null,
          log: [],
        },
        {
          index: 2,
          title: "Compare",
          assignee: "analyst",
          status: "failed",
          attempts: 3,
          summary: null,
          failureReason: "openai (HTTP 429): rate limited — the provider is rate-limiting this key",
          log: Array.from({ length: 30 }, (_, i) => ({
            at: `2026-01-01T00:00:${String(i).padStart(2, "0")}Z`,
            phase: "retry",
            message: `log entry ${i}`,
          })),
        },
      ],
    });
    plans.plans.push({ conversationId: "conv-other", id: "plan-x", title: "Secret plan", status: "running", steps: [] });
    const { runner } = testRuntime({
      env: { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: server.baseURL, ANTHROPIC_API_KEY: "ak-test", ANTHROPIC_BASE_URL: server.baseURL },
      deps: { plans },
    });
    return { runner, plans };
  }

  it("the deciding commander reads the failed step's facts before it decides", async () => {
    const { runner, plans } = setup();
    server.script(
      { kind: "tools", calls: [{ id: "call_1", name: "plan_status", args: JSON.stringify({ step: 2 }) }] },
      { kind: "tools", calls: [{ id: "call_2", name: "decide", args: JSON.stringify({ kind: "skip", reason: "rate limited thrice" }) }] },
    );
    const result = await runner.run(
      runRequest({
        agent: agentProfile({ handle: "commander", name: "Commander", role: "commander", model: MODEL[format] }),
        purpose: {
          kind: "commander-decision",
          failedStep: { index: 2, title: "Compare", assignee: "analyst", input: "compare", failureReason: "rate limited" },
        },
        step: { planId: "plan-1", stepIndex: 2, title: "Compare" },
        input: "step 2 failed",
      }),
      recordingSink(),
    );
    expect(result).toMatchObject({ kind: "ok", decision: { kind: "skip" } });
    expect(toolNames(server.requests[0])).toContain("plan_status");
    expect(plans.reads).toEqual([{ conversationId: "conv-1", planId: "plan-1", stepIndex: 2 }]);
    // the tool's answer went back to the model: status, attempts, reason and the newest log entries only
    const second = JSON.stringify(server.requests[1].body.messages);
    expect(second).toContain("rate-limiting this key");
    expect(second).toMatch(/\\"attempts\\":3/);
    expect(second).toMatch(/\\"status\\":\\"failed\\"/);
    expect(second).toContain(`log entry 29`);
    expect(second).toContain(`log entry ${30 - PLAN_STATUS_LOG_ENTRIES}`);
    expect(second).not.toContain(`log entry ${29 - PLAN_STATUS_LOG_ENTRIES}\\`);
    expect(second).not.toContain("Found 3 vendors"); // only the step asked for
  });

  it("a plan of another conversation is not found; sub-agents have no plan_status", async () => {
    const { runner } = setup();
    server.script(
      { kind: "tools", calls: [{ id: "call_1", name: "plan_status", args: JSON.stringify({ plan_id: "plan-x" }) }] },
      { kind: "text", text: "I cannot see it." },
    );
    await runner.run(
      runRequest({
        agent: agentProfile({ handle: "commander", name: "Commander", role: "commander", model: MODEL[format] }),
        purpose: { kind: "commander-chat" },
        input: "status?",
      }),
      recordingSink(),
    );
    const second = JSON.stringify(server.requests[1].body.messages);
    expect(second).toContain("No plan plan-x in this conversation.");
    expect(second).not.toContain("Secret plan");

    server.reset();
    server.script({ kind: "text", text: "hi" });
    await runner.run(runRequest({ agent: agentProfile({ model: MODEL[format] }), input: "hello" }), recordingSink());
    expect(toolNames(server.requests[0])).not.toContain("plan_status");
  });
});
