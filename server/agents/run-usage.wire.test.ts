/**
 * Runs end cleanly and count what they cost, through both wire formats: a cut stream's
 * partial text is dropped from the live view and its usage estimated; Anthropic gets
 * prompt-cache breakpoints and its cache reads are reported.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startFakeModelServer, type FakeModelServer } from "./testing/fake-model-server.ts";
import { MemoryConversationMemory } from "./memory-stores.ts";
import { agentProfile, recordingSink, runRequest, testRuntime } from "./testing/agent-fixture.ts";

(globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;

const MODEL = { openai: "openai:gpt-test", anthropic: "anthropic:claude-test" } as const;

describe.each(["openai", "anthropic"] as const)("run usage and live text through the %s wire format", (format) => {
  let server: FakeModelServer;
  beforeAll(async () => {
    server = await startFakeModelServer();
  });
  afterAll(() => server.close());
  beforeEach(() => server.reset());

  const runtime = (memory?: MemoryConversationMemory) =>
    testRuntime({
      env: { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: server.baseURL, ANTHROPIC_API_KEY: "ak-test", ANTHROPIC_BASE_URL: server.baseURL },
      deps: { retry: { sleep: async () => undefined, random: () => 0.5 }, ...(memory ? { memory } : {}) },
    });

  it("a stream cut and retried replaces its partial text in the live view, and its usage is estimated", async () => {
    const { runner } = runtime();
    const sink = recordingSink();
    const cut = "This answer will be cut off somewhere in the middle of a sentence";
    server.script({ kind: "drop", text: cut }, { kind: "text", text: "Complete answer.", usage: { input: 100, output: 20 } });
    const result = await runner.run(runRequest({ agent: agentProfile({ model: MODEL[format] }) }), sink);
    expect(result).toMatchObject({ kind: "ok", text: "Complete answer." });
    // the retry reset the live view to what completed before it (nothing), then the answer streamed
    expect(sink.resets).toEqual([""]);
    expect(sink.live()).toBe("Complete answer.");
    expect(sink.text()).toContain("This answer"); // what the cut call showed before the reset
    // the second call reported 100 in / 20 out; the cut one reported nothing and is estimated
    if (result.kind !== "ok") throw new Error("expected ok");
    expect(result.usage.estimated).toBe(true);
    expect(result.usage.tokensIn).toBeGreaterThan(100);
    expect(result.usage.tokensOut).toBeGreaterThan(20);
    expect(result.usage.tokensOut).toBeLessThanOrEqual(20 + Math.ceil(cut.length / 4));
    expect(sink.phases()).toContain("usage-estimated");
  });

  it("an HTTP error is not estimated: the provider read nothing", async () => {
    const { runner } = runtime();
    // a 503 is left to the durable retry (core/retry-policy.ts): the run ends with what it used, nothing
    server.script({ kind: "error", status: 503, message: "Overloaded", errorType: "overloaded_error" }, { kind: "text", text: "Fine." });
    const result = await runner.run(runRequest({ agent: agentProfile({ model: MODEL[format] }) }), recordingSink());
    expect(result).toMatchObject({ kind: "failed", transient: true, usage: { tokensIn: 0, tokensOut: 0 } });
    expect(result.usage.estimated).toBeUndefined();
  });

  it("cache reads are reported; only Anthropic is sent cache breakpoints on the system prompt and the history", async () => {
    const memory = new MemoryConversationMemory();
    memory.add("conv-1", { kind: "user", name: "Ada" }, "Fact: our staging database is called heron-7.");
    const trigger = memory.add("conv-1", { kind: "user", name: "Ada" }, "@researcher which database?");
    const { runner } = runtime(memory);
    server.script({ kind: "text", text: "heron-7", usage: { input: 120, output: 5, cacheRead: 80 } });
    const result = await runner.run(
      runRequest({ agent: agentProfile({ model: MODEL[format] }), input: "@researcher which database?", triggerMessageId: trigger.id }),
      recordingSink(),
    );
    expect(result).toMatchObject({ kind: "ok", usage: { cacheReadTokens: 80 } });
    const body = server.requests[0].body;
    if (format === "anthropic") {
      expect(body.system).toEqual([expect.objectContaining({ cache_control: { type: "ephemeral" } })]);
      const messages = body.messages as { role: string; content: { text?: string; cache_control?: unknown }[] }[];
      const marked = messages.flatMap((message) => message.content).filter((part) => part.cache_control);
      // the breakpoint is on the history (the fact), not on the new message
      expect(marked).toHaveLength(1);
      expect(marked[0].text).toContain("heron-7");
    } else {
      expect(JSON.stringify(body)).not.toContain("cache_control");
    }
  });

  it("bills cache reads and writes at their own rates, not at the input price", async () => {
    const { runner } = testRuntime({
      env: { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: server.baseURL, ANTHROPIC_API_KEY: "ak-test", ANTHROPIC_BASE_URL: server.baseURL },
      registry: {
        prices: {
          [MODEL[format]]: { inputPerMillion: 3, outputPerMillion: 15, cacheReadPerMillion: 0.3, cacheWritePerMillion: 3.75 },
        },
      },
    });
    // Anthropic counts input apart from cache reads and writes; OpenAI counts cached tokens inside prompt_tokens
    const usage =
      format === "anthropic"
        ? { input: 1_000, output: 200, cacheRead: 6_000, cacheWrite: 2_000 }
        : { input: 9_000, output: 200, cacheRead: 6_000 };
    server.script({ kind: "text", text: "ok", usage });
    const result = await runner.run(runRequest({ agent: agentProfile({ model: MODEL[format] }) }), recordingSink());
    if (result.kind !== "ok") throw new Error("expected ok");
    const expected =
      format === "anthropic"
        ? {
            tokensIn: 9_000,
            cacheReadTokens: 6_000,
            cacheWriteTokens: 2_000,
            cost: (1_000 * 3 + 6_000 * 0.3 + 2_000 * 3.75 + 200 * 15) / 1e6,
          }
        : { tokensIn: 9_000, cacheReadTokens: 6_000, cost: (3_000 * 3 + 6_000 * 0.3 + 200 * 15) / 1e6 };
    expect(result.usage).toMatchObject({ ...expected, cost: expect.closeTo(expected.cost, 10) });
    // priced as plain input, the same tokens would have cost more
    expect(result.usage.cost).toBeLessThan((9_000 * 3 + 200 * 15) / 1e6);
  });

  it("sends a plan step's shared context as a stable prefix, with a cache breakpoint for Anthropic", async () => {
    const { runner } = runtime();
    server.script({ kind: "text", text: "ok" });
    const request = runRequest({
      agent: agentProfile({ model: MODEL[format] }),
      input: "Research alpha only and return a short summary.",
      request: { text: "Compare alpha and beta for the release", attachments: [] },
      step: { planId: "plan-1", stepIndex: 1, title: "Alpha" },
    });
    await runner.run(request, recordingSink());
    const messages = server.requests[0].body.messages as {
      role: string;
      content: string | { type: string; text?: string; cache_control?: unknown }[];
    }[];
    const user = messages.find((message) => message.role === "user")!;
    if (format === "anthropic") {
      const parts = user.content as { text?: string; cache_control?: unknown }[];
      expect(parts).toHaveLength(2);
      expect(parts[0]).toMatchObject({ cache_control: { type: "ephemeral" } });
      expect(parts[0].text).toContain("Compare alpha and beta for the release");
      expect(parts[0].text).not.toContain("Research alpha only");
      expect(parts[1].text).toContain("Research alpha only");
      expect(parts[1].cache_control).toBeUndefined();
    } else {
      const text = typeof user.content === "string" ? user.content : user.content.map((part) => part.text).join("");
      // the shared request first, the step's own task last: the provider's automatic cache sees the same prefix
      expect(text.indexOf("Compare alpha and beta")).toBeLessThan(text.indexOf("Research alpha only"));
      expect(JSON.stringify(user)).not.toContain("cache_control");
    }
  });

  it("OpenAI is sent one cache routing key per agent and conversation, Anthropic none", async () => {
    const { runner } = runtime();
    server.respond(() => ({ kind: "text", text: "ok" }));
    const send = (agentId: string, conversationId: string) =>
      runner.run(runRequest({ agent: agentProfile({ id: agentId, model: MODEL[format] }), conversationId }), recordingSink());
    await send("agent-1", "conv-1");
    await send("agent-1", "conv-1");
    await send("agent-2", "conv-1");
    await send("agent-1", "conv-2");
    const keys = server.requests.map((request) => request.body.prompt_cache_key);
    if (format === "openai") {
      expect(keys[0]).toMatch(/^baton-[0-9a-f]{32}$/);
      expect(keys[1]).toBe(keys[0]);
      expect(new Set(keys).size).toBe(3);
    } else {
      expect(keys).toEqual([undefined, undefined, undefined, undefined]);
    }
  });
});
