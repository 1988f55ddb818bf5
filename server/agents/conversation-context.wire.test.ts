/**
 * A person's earlier message reaches the model of an agent they mention, as real
 * chat turns in both wire formats; a plan step's request carries none of it.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startFakeModelServer, type FakeModelServer } from "./testing/fake-model-server.ts";
import { MemoryConversationMemory } from "./memory-stores.ts";
import { agentProfile, recordingSink, runRequest, testRuntime } from "./testing/agent-fixture.ts";

(globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;

const MODEL = { openai: "openai:gpt-test", anthropic: "anthropic:claude-test" } as const;

describe.each(["openai", "anthropic"] as const)("conversation context through the %s wire format", (format) => {
  let server: FakeModelServer;
  beforeAll(async () => {
    server = await startFakeModelServer();
  });
  afterAll(() => server.close());
  beforeEach(() => server.reset());

  function setup() {
    const memory = new MemoryConversationMemory();
    memory.add("conv-1", { kind: "user", name: "Ada" }, "Fact: our staging database is called heron-7.");
    memory.add("conv-1", { kind: "agent", handle: "writer", name: "Writer" }, "I will draft the release notes.");
    const trigger = memory.add("conv-1", { kind: "user", name: "Ada" }, "@researcher what is the staging database called?");
    const { runner } = testRuntime({
      env: { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: server.baseURL, ANTHROPIC_API_KEY: "ak-test", ANTHROPIC_BASE_URL: server.baseURL },
      deps: { memory },
    });
    return { runner, trigger };
  }

  it("a direct mention is answered from a request that holds the earlier messages as turns", async () => {
    const { runner, trigger } = setup();
    server.script({ kind: "text", text: "It is heron-7." });
    const result = await runner.run(
      runRequest({
        agent: agentProfile({ model: MODEL[format] }),
        input: "@researcher what is the staging database called?",
        triggerMessageId: trigger.id,
      }),
      recordingSink(),
    );
    expect(result).toMatchObject({ kind: "ok", text: "It is heron-7." });
    const messages = server.requests[0].body.messages as { role: string; content: unknown }[];
    const body = JSON.stringify(messages);
    expect(body).toContain("Ada: Fact: our staging database is called heron-7.");
    expect(body).toContain("@writer (Writer, an agent) wrote:");
    // chat turns, not one pasted prompt: the fact and the question are different turns
    // (Anthropic's wire joins consecutive user turns into one message of several blocks)
    const turns = messages.flatMap((message) => (Array.isArray(message.content) ? (message.content as unknown[]) : [message.content]));
    const holding = (needle: string) => turns.findIndex((turn) => JSON.stringify(turn).includes(needle));
    expect(holding("heron-7")).toBeGreaterThanOrEqual(0);
    expect(holding("what is the staging database called")).toBeGreaterThan(holding("heron-7"));
  });

  it("a plan step sees only its own input", async () => {
    const { runner, trigger } = setup();
    server.script({ kind: "text", text: "done" });
    await runner.run(
      runRequest({
        agent: agentProfile({ model: MODEL[format] }),
        input: "Summarise the options",
        triggerMessageId: trigger.id,
        step: { planId: "p1", stepIndex: 1, title: "Summarise" },
      }),
      recordingSink(),
    );
    expect(JSON.stringify(server.requests[0].body.messages)).not.toContain("heron-7");
  });
});
