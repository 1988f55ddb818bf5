/**
 * The run loop against the real AI SDK providers, talking to a loopback server
 * that speaks OpenAI Chat Completions and Anthropic Messages over SSE.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startFakeModelServer, type FakeModelServer, type RecordedRequest, type WireFormat } from "./testing/fake-model-server.ts";
import { agentProfile, commanderProfile, recordingSink, runRequest, testRuntime } from "./testing/agent-fixture.ts";

// the providers warn about unknown model names on every call
(globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;

// `local` is an OpenAI-compatible server (Ollama, vLLM…) through @ai-sdk/openai-compatible: same wire as openai
type Provider = WireFormat | "local";
const MODEL: Record<Provider, string> = { openai: "openai:gpt-test", anthropic: "anthropic:claude-test", local: "local:llama-test" };

/** Tool results the client sent back, in either wire format. */
function toolResults(request: RecordedRequest): { id: string; content: string; isError: boolean }[] {
  const messages = request.body.messages as Record<string, unknown>[];
  const out: { id: string; content: string; isError: boolean }[] = [];
  for (const message of messages) {
    if (request.format === "openai" && message.role === "tool") {
      out.push({ id: String(message.tool_call_id), content: String(message.content), isError: false });
    }
    if (request.format === "anthropic" && Array.isArray(message.content)) {
      for (const part of message.content as Record<string, unknown>[]) {
        if (part.type !== "tool_result") continue;
        const content = Array.isArray(part.content)
          ? (part.content as { text?: string }[]).map((c) => c.text ?? "").join("")
          : String(part.content);
        out.push({ id: String(part.tool_use_id), content, isError: part.is_error === true });
      }
    }
  }
  return out;
}

const promptText = (request: RecordedRequest) => JSON.stringify(request.body.messages);

describe.each(["openai", "anthropic", "local"] as const)("run loop through the %s provider", (format) => {
  let server: FakeModelServer;
  beforeAll(async () => {
    server = await startFakeModelServer();
  });
  afterAll(() => server.close());
  beforeEach(() => {
    server.reset();
  });

  const runtime = (overrides: Parameters<typeof testRuntime>[0] = {}) =>
    testRuntime({
      env: {
        OPENAI_API_KEY: "sk-test",
        OPENAI_BASE_URL: server.baseURL,
        ANTHROPIC_API_KEY: "ak-test",
        ANTHROPIC_BASE_URL: server.baseURL,
        LOCAL_MODEL_BASE_URL: server.baseURL,
      },
      ...overrides,
      registry: { prices: { [MODEL[format]]: { inputPerMillion: 1_000, outputPerMillion: 2_000 } }, ...overrides.registry },
    });
  const subAgent = (overrides = {}) => agentProfile({ model: MODEL[format], ...overrides });

  it("streams text in batches and reports usage and cost", async () => {
    const { runner } = runtime();
    const sink = recordingSink();
    const text = "Postgres is a robust relational database with strong consistency. ".repeat(3).trim();
    server.script({ kind: "text", text, chunks: 12, usage: { input: 120, output: 30 } });
    const result = await runner.run(runRequest({ agent: subAgent(), input: "Tell me about Postgres" }), sink);
    expect(result).toMatchObject({ kind: "ok", text, summary: text });
    expect(sink.text()).toBe(text);
    expect(sink.deltas.length).toBeLessThan(12);
    expect(result.usage).toEqual({ tokensIn: 120, tokensOut: 30, cost: 0.18 });
    // the system prompt carries the untrusted-data rule; the task reaches the model
    expect(JSON.stringify(server.requests[0].body)).toContain("untrusted-data");
    expect(promptText(server.requests[0])).toContain("Tell me about Postgres");
  });

  it("runs tool calls whose JSON arguments arrive split across chunks, then finishes", async () => {
    const { runner, artifacts } = runtime();
    const sink = recordingSink();
    server.script(
      {
        kind: "tools",
        text: "Writing the report.",
        calls: [{ id: "call_w1", name: "write_file", args: JSON.stringify({ name: "report.md", content: "# Report\n\nAll good." }) }],
        chunks: 5,
      },
      {
        kind: "tools",
        calls: [{ id: "call_f1", name: "finish", args: JSON.stringify({ summary: "Report written.", files: ["report.md"] }) }],
      },
    );
    const request = runRequest({ agent: subAgent(), input: "Write a report", step: { planId: "plan-1", stepIndex: 2, title: "Report" } });
    const result = await runner.run(request, sink);
    expect(result).toMatchObject({ kind: "ok", summary: "Report written.", files: ["report.md"], untrusted: false });
    const file = await artifacts.read({ conversationId: "conv-1", name: "report.md" });
    expect(new TextDecoder().decode(file!.content)).toBe("# Report\n\nAll good.");
    expect(file!.record).toMatchObject({
      mediaType: "text/markdown",
      sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
      producer: { runId: request.runId, agentHandle: "researcher", planId: "plan-1", stepIndex: 2 },
    });
    expect(toolResults(server.requests[1])).toEqual([expect.objectContaining({ id: "call_w1", isError: false })]);
    expect(sink.phases()).toEqual(expect.arrayContaining(["tool-call", "tool-result"]));
  });

  it("runs parallel tool calls of one response", async () => {
    const { runner, artifacts } = runtime();
    server.script(
      {
        kind: "tools",
        interleave: true,
        calls: [
          { id: "call_a", name: "write_file", args: JSON.stringify({ name: "a.txt", content: "alpha" }) },
          { id: "call_b", name: "write_file", args: JSON.stringify({ name: "b.txt", content: "beta" }) },
        ],
      },
      {
        kind: "tools",
        calls: [{ id: "call_f", name: "finish", args: JSON.stringify({ summary: "two files", files: ["a.txt", "b.txt"] }) }],
      },
    );
    const result = await runner.run(runRequest({ agent: subAgent(), input: "Write two files" }), recordingSink());
    expect(result).toMatchObject({ kind: "ok", files: ["a.txt", "b.txt"] });
    expect((await artifacts.list({ conversationId: "conv-1" })).map((f) => f.name).sort()).toEqual(["a.txt", "b.txt"]);
    expect(
      toolResults(server.requests[1])
        .map((r) => r.id)
        .sort(),
    ).toEqual(["call_a", "call_b"]);
  });

  it("waits out a 429 with Retry-After, then succeeds", async () => {
    const { runner, sleeps } = runtime();
    const sink = recordingSink();
    server.script(
      { kind: "error", status: 429, message: "Rate limit reached", errorType: "rate_limit_error", headers: { "retry-after": "2" } },
      { kind: "text", text: "Recovered." },
    );
    const result = await runner.run(runRequest({ agent: subAgent() }), sink);
    expect(result).toMatchObject({ kind: "ok", text: "Recovered." });
    expect(sleeps).toEqual([2000]);
    expect(sink.phases()).toContain("retry");
  });

  it("retries a 500 with backoff, then succeeds", async () => {
    const { runner, sleeps } = runtime();
    server.script({ kind: "error", status: 500, message: "Internal error", errorType: "api_error" }, { kind: "text", text: "Fine now." });
    const sink = recordingSink();
    const result = await runner.run(runRequest({ agent: subAgent() }), sink);
    expect(result).toMatchObject({ kind: "ok", text: "Fine now." });
    expect(sleeps).toEqual([750]); // base 1000 ms, jitter 0.5 → between 500 and 1000
    // the wait is one live status line on the step, cleared when the retry goes out
    expect(sink.statuses).toEqual(["attempt 2 of 5, retrying in 1 s (provider error)", null]);
  });

  it("survives a connection dropped mid-stream", async () => {
    const { runner, sleeps } = runtime();
    const sink = recordingSink();
    server.script(
      { kind: "drop", text: "This answer will be cut off somewhere in the middle" },
      { kind: "text", text: "Complete answer." },
    );
    const result = await runner.run(runRequest({ agent: subAgent() }), sink);
    expect(result).toMatchObject({ kind: "ok", text: "Complete answer.", summary: "Complete answer." });
    expect(sleeps).toHaveLength(1);
    expect(sink.logs.find((l) => l.phase === "retry")?.message).toMatch(/transient/);
    expect(server.requests).toHaveLength(2);
  });

  it("reports a transient failure when retries run out", async () => {
    const { runner, sleeps } = runtime({ deps: { retry: { maxRetries: 2, sleep: async () => undefined, random: () => 0.5 } } });
    server.script(
      { kind: "error", status: 503, message: "Overloaded", errorType: "overloaded_error" },
      { kind: "error", status: 503, message: "Overloaded", errorType: "overloaded_error" },
      { kind: "error", status: 503, message: "Overloaded", errorType: "overloaded_error" },
    );
    const result = await runner.run(runRequest({ agent: subAgent() }), recordingSink());
    expect(result).toMatchObject({ kind: "failed", transient: true, reason: expect.stringContaining("Overloaded") });
    expect(sleeps).toEqual([]);
  });

  it("reports a 401 as fatal without retrying", async () => {
    const { runner, sleeps } = runtime();
    server.script({ kind: "error", status: 401, message: "invalid x-api-key", errorType: "authentication_error" });
    const result = await runner.run(runRequest({ agent: subAgent() }), recordingSink());
    expect(result).toMatchObject({ kind: "failed", transient: false });
    expect(sleeps).toEqual([]);
  });

  it("returns malformed tool-call JSON to the model once, which fixes it", async () => {
    const { runner } = runtime();
    const sink = recordingSink();
    server.script(
      { kind: "tools", calls: [{ id: "call_bad", name: "finish", args: '{"summary": "half-written, "files": [' }] },
      { kind: "tools", calls: [{ id: "call_good", name: "finish", args: JSON.stringify({ summary: "fixed it", files: [] }) }] },
    );
    const result = await runner.run(runRequest({ agent: subAgent() }), sink);
    expect(result).toMatchObject({ kind: "ok", summary: "fixed it" });
    const returned = toolResults(server.requests[1]);
    expect(returned).toHaveLength(1);
    expect(returned[0].id).toBe("call_bad");
    expect(returned[0].content).toMatch(/invalid|JSON|parse/i);
    expect(sink.phases()).toContain("tool-malformed");
  });

  it("fails the run when tool-call JSON stays malformed", async () => {
    const { runner } = runtime();
    server.script(
      { kind: "tools", calls: [{ id: "call_1", name: "finish", args: '{"summary": ' }] },
      { kind: "tools", calls: [{ id: "call_2", name: "finish", args: '{"summary": "x"' }] },
    );
    const result = await runner.run(runRequest({ agent: subAgent() }), recordingSink());
    expect(result).toMatchObject({ kind: "failed", transient: false, reason: expect.stringContaining("malformed") });
  });

  it("refuses a tool outside the agent's allow-list with an error result", async () => {
    const { runner, artifacts } = runtime();
    server.script(
      { kind: "tools", calls: [{ id: "call_w", name: "write_file", args: JSON.stringify({ name: "x.txt", content: "no" }) }] },
      { kind: "text", text: "Understood, I cannot write files." },
    );
    const agent = subAgent({ allowedTools: ["read_file"] });
    const result = await runner.run(runRequest({ agent }), recordingSink());
    expect(result).toMatchObject({ kind: "ok", text: "Understood, I cannot write files." });
    expect(await artifacts.list({ conversationId: "conv-1" })).toEqual([]);
    const tools = JSON.stringify(server.requests[0].body.tools);
    expect(tools).toContain("read_file");
    expect(tools).not.toContain("write_file");
    expect(toolResults(server.requests[1])[0].content).toContain("not allowed");
  });

  it("blocks on ask_user and resumes the stored session with the answer", async () => {
    const { runner, sessions } = runtime();
    const form = {
      title: "Which region?",
      fields: [{ name: "region", label: "Region", type: "select", required: true, options: ["eu", "us"] }],
    };
    server.script({ kind: "tools", text: "I need a region.", calls: [{ id: "call_ask", name: "ask_user", args: JSON.stringify(form) }] });
    const first = runRequest({ agent: subAgent(), input: "Deploy the app" });
    const blocked = await runner.run(first, recordingSink());
    expect(blocked).toMatchObject({ kind: "blocked", form, text: "I need a region." });

    server.script({
      kind: "tools",
      calls: [{ id: "call_fin", name: "finish", args: JSON.stringify({ summary: "Deployed to eu.", files: [] }) }],
    });
    const resumed = await runner.run(
      runRequest({
        agent: subAgent(),
        input: "Deploy the app",
        runId: "resume-run",
        resume: { previousRunId: first.runId, answer: '{"region":"eu"}' },
      }),
      recordingSink(),
    );
    expect(resumed).toMatchObject({ kind: "ok", summary: "Deployed to eu." });
    const resumedRequest = server.requests[1];
    expect(promptText(resumedRequest)).toContain("Deploy the app");
    expect(toolResults(resumedRequest)).toEqual([expect.objectContaining({ id: "call_ask", content: expect.stringContaining("eu") })]);
    // user, assistant(ask_user), tool(answer), assistant(finish), tool(finish result)
    expect(await sessions.load("resume-run")).toHaveLength(5);
  });

  it("re-asks the model when create_plan is invalid, with the validator's errors", async () => {
    const plan = { title: "P", steps: [{ index: 1, title: "A", assignee: "nobody", input: "do A" }] };
    const fixed = { ...plan, steps: [{ ...plan.steps[0], assignee: "researcher" }] };
    const { runner } = runtime({
      deps: {
        validatePlan: (raw) =>
          (raw as typeof plan).steps[0].assignee === "researcher"
            ? { ok: true }
            : { ok: false, message: 'step 1: unknown assignee "nobody"' },
      },
    });
    server.script(
      { kind: "tools", calls: [{ id: "call_p1", name: "create_plan", args: JSON.stringify(plan) }] },
      { kind: "tools", text: "Here is the plan.", calls: [{ id: "call_p2", name: "create_plan", args: JSON.stringify(fixed) }] },
    );
    const result = await runner.run(
      runRequest({ agent: commanderProfile({ model: MODEL[format] }), purpose: { kind: "commander-chat" }, input: "Do A" }),
      recordingSink(),
    );
    expect(result).toMatchObject({ kind: "ok", plan: fixed, text: "Here is the plan." });
    expect(toolResults(server.requests[1])[0].content).toContain('unknown assignee "nobody"');
  });

  it("gives up after three invalid plans", async () => {
    const { runner } = runtime({ deps: { validatePlan: () => ({ ok: false, message: "step 1: cycle" }) } });
    const plan = JSON.stringify({ title: "P", steps: [{ index: 1, title: "A", assignee: "researcher", input: "x", wait_for: [1] }] });
    server.script(...[1, 2, 3].map((n) => ({ kind: "tools" as const, calls: [{ id: `call_${n}`, name: "create_plan", args: plan }] })));
    const result = await runner.run(
      runRequest({ agent: commanderProfile({ model: MODEL[format] }), purpose: { kind: "commander-chat" }, input: "Do A" }),
      recordingSink(),
    );
    expect(result).toMatchObject({ kind: "failed", transient: false, reason: expect.stringContaining("step 1: cycle") });
    expect(server.requests).toHaveLength(3);
  });

  it("compacts older turns when the provider reports a context overflow", async () => {
    const { runner, sessions, artifacts } = runtime({ registry: { contextBudgets: { [MODEL[format]]: 4_000 } } });
    const sink = recordingSink();
    const big = "BIGDATA ".repeat(1_500);
    await artifacts.upload({ conversationId: "conv-1", name: "big.txt", content: big, untrusted: false });
    const overflow =
      format !== "anthropic"
        ? {
            kind: "error" as const,
            status: 400,
            message: "This model's maximum context length is 8192 tokens.",
            errorType: "invalid_request_error",
            code: "context_length_exceeded",
          }
        : {
            kind: "error" as const,
            status: 400,
            message: "prompt is too long: 210000 tokens > 200000 maximum",
            errorType: "invalid_request_error",
          };
    server.script(
      { kind: "tools", calls: [{ id: "call_r", name: "read_file", args: JSON.stringify({ name: "big.txt" }) }] },
      {
        kind: "tools",
        calls: [{ id: "call_w", name: "write_file", args: JSON.stringify({ name: "notes.md", content: "big.txt repeats one word" }) }],
      },
      overflow,
      { kind: "text", text: "SUMMARY: read big.txt (one repeated word), wrote notes.md." }, // the summarizer's call
      { kind: "tools", calls: [{ id: "call_f", name: "finish", args: JSON.stringify({ summary: "Noted.", files: ["notes.md"] }) }] },
    );
    const request = runRequest({ agent: subAgent(), input: "Read big.txt and take notes" });
    const result = await runner.run(request, sink);
    expect(result).toMatchObject({ kind: "ok", summary: "Noted.", files: ["notes.md"] });
    const [, , overflowed, summarizer, after] = server.requests;
    expect(promptText(overflowed)).toContain("BIGDATA");
    expect(summarizer.stream).toBe(false);
    expect(promptText(after)).not.toContain("BIGDATA");
    expect(promptText(after)).toContain("SUMMARY: read big.txt");
    expect(promptText(after)).toContain("Read big.txt and take notes");
    expect(sink.phases()).toContain("compaction");
    // the stored session keeps the originals
    expect(JSON.stringify(await sessions.load(request.runId))).toContain("BIGDATA");
  });
});
