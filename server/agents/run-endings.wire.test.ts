/** How runs end, through both wire formats: a run that answers only by calling finish still says something. */
import { simulateReadableStream } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startFakeModelServer, type FakeModelServer } from "./testing/fake-model-server.ts";
import { agentProfile, recordingSink, runRequest, testRuntime } from "./testing/agent-fixture.ts";

(globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;

describe.each([
  ["openai", "openai:gpt-test", "OPENAI_API_KEY"],
  ["anthropic", "anthropic:claude-test", "ANTHROPIC_API_KEY"],
] as const)("run endings through the %s wire format", (format, model, keyVariable) => {
  let server: FakeModelServer;
  beforeAll(async () => {
    server = await startFakeModelServer();
  });
  afterAll(() => server.close());
  beforeEach(() => server.reset());

  it("a mention answered only by a finish call posts the finish summary as its message", async () => {
    const { runner } = testRuntime({
      env: { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: server.baseURL, ANTHROPIC_API_KEY: "ak-test", ANTHROPIC_BASE_URL: server.baseURL },
    });
    server.script({
      kind: "tools",
      calls: [{ id: "call_1", name: "finish", args: JSON.stringify({ summary: "Staging is heron-7.", files: [] }) }],
    });
    const result = await runner.run(runRequest({ agent: agentProfile({ model }), input: "@researcher which database?" }), recordingSink());
    expect(result).toMatchObject({ kind: "ok", text: "Staging is heron-7.", summary: "Staging is heron-7." });
  });

  it("an answer retried after an in-stream provider error keeps only the successful attempt's text", async () => {
    const { runner } = testRuntime({
      env: { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: server.baseURL, ANTHROPIC_API_KEY: "ak-test", ANTHROPIC_BASE_URL: server.baseURL },
    });
    server.script(
      { kind: "stream-error", text: "Looking into i", message: "The server had an error while processing your request" },
      { kind: "text", text: "Looking into it: heron-7 is the staging database." },
    );
    const sink = recordingSink();
    const result = await runner.run(runRequest({ agent: agentProfile({ model }), input: "@researcher which database?" }), sink);
    expect(server.requests).toHaveLength(2);
    expect(result).toMatchObject({ kind: "ok", text: "Looking into it: heron-7 is the staging database." });
    expect(sink.live()).toBe("Looking into it: heron-7 is the staging database.");
  });

  it("a commander reply that only calls a tool still says something", async () => {
    const { runner } = testRuntime({
      env: { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: server.baseURL, ANTHROPIC_API_KEY: "ak-test", ANTHROPIC_BASE_URL: server.baseURL },
    });
    server.script({ kind: "tools", calls: [{ id: "call_1", name: "read_file", args: "{}" }] }, { kind: "text", text: "" });
    const commander = agentProfile({ model, role: "commander", handle: "commander", allowedTools: ["read_file"] });
    const result = await runner.run(
      runRequest({ agent: commander, purpose: { kind: "commander-chat" }, input: "anything new?" }),
      recordingSink(),
    );
    expect(result.kind).toBe("ok");
    const text = result.kind === "ok" ? result.text : "";
    expect(text).toBe("I read the conversation's files, and have nothing to add.");
    // the same words as data, for readers of other languages
    expect(result.kind === "ok" && result.notice).toEqual({
      key: "nothingToAddAfter",
      values: {},
      list: { join: "and", items: [{ key: "deedReadFile", values: {} }] },
    });
  });

  it("a refused key fails the run with the provider, the status and the variable to fix", async () => {
    const { runner } = testRuntime({
      env: { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: server.baseURL, ANTHROPIC_API_KEY: "ak-test", ANTHROPIC_BASE_URL: server.baseURL },
    });
    server.script({ kind: "error", status: 401, message: "invalid x-api-key", errorType: "authentication_error" });
    const result = await runner.run(runRequest({ agent: agentProfile({ model }), input: "hello" }), recordingSink());
    expect(result).toMatchObject({
      kind: "failed",
      transient: false,
      reason: `${format} (HTTP 401): invalid x-api-key — check ${keyVariable}`,
    });
  });

  // failures a stronger model could fix carry their cause: the executor may escalate them (core/run-model.ts)
  it("malformed tool arguments twice, or a content-filter refusal, fail the run with their cause", async () => {
    const { runner } = testRuntime({
      env: { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: server.baseURL, ANTHROPIC_API_KEY: "ak-test", ANTHROPIC_BASE_URL: server.baseURL },
    });
    const malformed = { kind: "tools" as const, calls: [{ id: "call_1", name: "finish", args: '{"summary": ' }] };
    server.script(malformed, { ...malformed, calls: [{ id: "call_2", name: "finish", args: '{"summary": ' }] });
    const step = { planId: "p1", stepIndex: 1, title: "t" };
    const bad = await runner.run(runRequest({ agent: agentProfile({ model }), input: "hello", step }), recordingSink());
    expect(server.requests).toHaveLength(2);
    expect(bad).toMatchObject({ kind: "failed", transient: false, cause: "malformed-tool-calls" });

    server.reset();
    server.script({ kind: "text", text: "I can", refused: true });
    const sink = recordingSink();
    const refused = await runner.run(runRequest({ agent: agentProfile({ model }), input: "hello", step }), sink);
    expect(refused).toMatchObject({ kind: "failed", transient: false, cause: "refused" });
    expect(sink.logs.map((entry) => entry.phase)).toContain("refused");
  });

  it("a commander whose plan is rejected three times fails with the cause plan-rejected", async () => {
    const { runner } = testRuntime({
      env: { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: server.baseURL, ANTHROPIC_API_KEY: "ak-test", ANTHROPIC_BASE_URL: server.baseURL },
      deps: { validatePlan: () => ({ ok: false, message: 'step 1: assignee "nobody" is not in this conversation' }) },
    });
    const invalidPlan = (id: string) => ({
      kind: "tools" as const,
      calls: [
        {
          id,
          name: "create_plan",
          args: JSON.stringify({ title: "P", steps: [{ index: 1, title: "a", assignee: "nobody", input: "x" }] }),
        },
      ],
    });
    server.script(invalidPlan("call_1"), invalidPlan("call_2"), invalidPlan("call_3"));
    const commander = agentProfile({ model, role: "commander", handle: "commander" });
    const result = await runner.run(
      runRequest({ agent: commander, purpose: { kind: "commander-chat" }, input: "compare A, B and C" }),
      recordingSink(),
    );
    expect(result).toMatchObject({ kind: "failed", transient: false, cause: "plan-rejected" });
  });
});

describe("what real providers are sent", () => {
  it("never carries the offline model's options; the offline model gets them", async () => {
    const seen: (Record<string, unknown> | undefined)[] = [];
    const model = new MockLanguageModelV3({
      doStream: async (options) => {
        seen.push(options.providerOptions);
        return {
          stream: simulateReadableStream({
            chunks: [
              { type: "text-start", id: "t" },
              { type: "text-delta", id: "t", delta: "hi" },
              { type: "text-end", id: "t" },
              {
                type: "finish",
                finishReason: { unified: "stop", raw: "stop" },
                usage: {
                  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
                  outputTokens: { total: 1, text: 1, reasoning: 0 },
                },
              },
            ],
          }),
        };
      },
    });
    for (const simulated of [false, true]) {
      const { runner } = testRuntime({
        deps: { models: { resolve: () => model, cost: () => 0, contextBudget: () => 100_000, isSimulated: () => simulated } },
      });
      await runner.run(
        runRequest({ agent: agentProfile({ model: "openai:gpt-test" }), input: "hello", step: { planId: "p1", stepIndex: 2, title: "t" } }),
        recordingSink(),
      );
    }
    expect(seen[0]?.offline).toBeUndefined();
    expect(seen[1]?.offline).toEqual({ stepKey: "p1:2" });
  });
});
