/**
 * streamParts reads a streamText result's internal stream instead of fullStream (see
 * stream-parts.ts). These tests pin that the SDK still has that stream (else the run
 * loop silently takes the slower fullStream), and that both yield the same parts.
 */
import { describe, expect, it } from "vitest";
import { jsonSchema, stepCountIs, streamText, tool, type TextStreamPart, type ToolSet } from "ai";
import { MockLanguageModelV3, simulateReadableStream } from "ai/test";
import type { LanguageModelV3StreamPart } from "@ai-sdk/provider";
import { hasInternalStream, streamParts } from "./stream-parts.ts";

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 5, text: 5, reasoning: 0 },
};

/** a model that writes some text and calls `finish`, then (second call) says "done" */
function scriptedModel(options: { failSecondCall?: boolean } = {}) {
  let calls = 0;
  return new MockLanguageModelV3({
    doStream: async () => {
      calls += 1;
      if (calls === 2 && options.failSecondCall) throw Object.assign(new Error("boom"), { statusCode: 400 });
      const chunks: LanguageModelV3StreamPart[] =
        calls === 1
          ? [
              { type: "stream-start", warnings: [] },
              { type: "response-metadata", id: "r1", modelId: "mock", timestamp: new Date(0) },
              { type: "text-start", id: "t1" },
              { type: "text-delta", id: "t1", delta: "Hello, " },
              { type: "text-delta", id: "t1", delta: "world." },
              { type: "text-end", id: "t1" },
              { type: "tool-input-start", id: "c1", toolName: "finish" },
              { type: "tool-input-delta", id: "c1", delta: '{"summary":"ok"}' },
              { type: "tool-input-end", id: "c1" },
              { type: "tool-call", toolCallId: "c1", toolName: "finish", input: '{"summary":"ok"}' },
              { type: "finish", usage, finishReason: { unified: "tool-calls", raw: undefined } },
            ]
          : [
              { type: "stream-start", warnings: [] },
              { type: "response-metadata", id: "r2", modelId: "mock", timestamp: new Date(0) },
              { type: "text-start", id: "t2" },
              { type: "text-delta", id: "t2", delta: "done" },
              { type: "text-end", id: "t2" },
              { type: "finish", usage, finishReason: { unified: "stop", raw: undefined } },
            ];
      return { stream: simulateReadableStream({ chunks, initialDelayInMs: null, chunkDelayInMs: null }) };
    },
  });
}

const tools: ToolSet = {
  finish: tool({
    description: "finish",
    inputSchema: jsonSchema<{ summary: string }>({ type: "object", properties: { summary: { type: "string" } }, required: ["summary"] }),
    execute: async ({ summary }) => `Finished: ${summary}`,
  }),
};

function call(model: MockLanguageModelV3, abortSignal?: AbortSignal) {
  return streamText({
    model,
    messages: [{ role: "user", content: "hi" }],
    tools,
    maxRetries: 0,
    stopWhen: stepCountIs(3),
    onError: () => undefined,
    abortSignal,
    _internal: { generateId: () => "id", now: () => 0 },
  });
}

async function collect(parts: AsyncIterable<TextStreamPart<ToolSet>>) {
  const out: unknown[] = [];
  try {
    for await (const part of parts) out.push(part);
  } catch (error) {
    out.push({ thrown: String(error) });
  }
  // error objects compare by message: the two calls throw equal but distinct errors
  return JSON.parse(JSON.stringify(out, (_, value: unknown) => (value instanceof Error ? `${value.name}: ${value.message}` : value)));
}

describe("streamParts", () => {
  it("finds the AI SDK's internal stream (if this fails, an SDK upgrade moved it: runs still work, only slower)", () => {
    expect(hasInternalStream(call(scriptedModel()))).toBe(true);
  });

  it("yields what fullStream yields: text, tool call and result, steps, finish", async () => {
    const fast = await collect(streamParts(call(scriptedModel())));
    const full = await collect(call(scriptedModel()).fullStream);
    expect(fast).toEqual(full);
    expect(fast.map((part: { type: string }) => part.type)).toEqual(
      expect.arrayContaining(["text-delta", "tool-call", "tool-result", "finish"]),
    );
  });

  it("yields the same error part when a later model call fails", async () => {
    const fast = await collect(streamParts(call(scriptedModel({ failSecondCall: true }))));
    const full = await collect(call(scriptedModel({ failSecondCall: true })).fullStream);
    expect(fast).toEqual(full);
    expect(fast.some((part: { type: string }) => part.type === "error")).toBe(true);
  });

  it("yields the same abort part when the run is cancelled", async () => {
    const read = async (fast: boolean) => {
      const controller = new AbortController();
      const result = call(scriptedModel(), controller.signal);
      const parts: string[] = [];
      for await (const part of fast ? streamParts(result) : result.fullStream) {
        parts.push(part.type);
        if (part.type === "text-delta") controller.abort();
      }
      return parts;
    };
    const fast = await read(true);
    expect(fast).toEqual(await read(false));
    expect(fast.at(-1)).toBe("abort");
  });

  it("cancels the call's stream when the loop stops early", async () => {
    const result = call(scriptedModel());
    for await (const part of streamParts(result)) if (part.type === "start-step") break;
    const base = (result as unknown as { baseStream: ReadableStream }).baseStream;
    expect(base.locked).toBe(false);
    // cancelled: a new reader sees the stream ended
    expect(await base.getReader().read()).toEqual({ done: true, value: undefined });
  });

  it("passes bare parts on as they are, should the internal stream hold those", async () => {
    const parts: TextStreamPart<ToolSet>[] = [{ type: "start" }, { type: "text-delta", id: "t", text: "hi" }];
    const baseStream = new ReadableStream({
      start(controller) {
        for (const part of parts) controller.enqueue(part);
        controller.close();
      },
    });
    const fake = { fullStream: (async function* () {})(), baseStream };
    expect(await collect(streamParts(fake))).toEqual(parts);
  });

  it("falls back to fullStream when the result has no internal stream", () => {
    const fullStream = (async function* () {})();
    expect(streamParts({ fullStream })).toBe(fullStream);
  });
});
