/** The fake providers' prompt cache: what each provider would report for repeated prefixes. */
import { describe, expect, it } from "vitest";
import type { RecordedRequest, WireFormat } from "./fake-model-server.ts";
import { createPromptCache } from "./fake-responder.ts";

const request = (format: WireFormat, body: Record<string, unknown>): RecordedRequest => ({
  format,
  path: format === "openai" ? "/v1/chat/completions" : "/v1/messages",
  headers: {},
  body: { model: "m", ...body },
  stream: true,
});

const openai = (system: string, user: string) =>
  request("openai", {
    messages: [
      { role: "system", content: system },
      { role: "user", content: user },
    ],
  });

const anthropic = (system: string, user: string, marked = true) =>
  request("anthropic", {
    system: [{ type: "text", text: system, ...(marked ? { cache_control: { type: "ephemeral" } } : {}) }],
    messages: [{ role: "user", content: [{ type: "text", text: user }] }],
  });

const LONG = "You are a careful researcher. ".repeat(300); // ~9,000 characters, ~2,250 tokens
const SHORT = "You are brief. ".repeat(100); // ~1,500 characters, under 1,024 tokens

describe("the fake providers' prompt cache", () => {
  it("OpenAI: a repeated prefix of 1,024 tokens or more is read from the cache, in 128-token steps", () => {
    const cache = createPromptCache({ enabled: true });
    const first = cache.usage(openai(LONG, "Question one?"), 10);
    expect(first).toMatchObject({ cacheRead: 0, output: 10 });
    const second = cache.usage(openai(LONG, "Another question?"), 10);
    expect(second.input).toBeGreaterThan(2_000);
    expect(second.cacheRead).toBeGreaterThanOrEqual(1_024);
    expect(second.cacheRead).toBeLessThanOrEqual(Math.floor(LONG.length / 4));
    expect((second.cacheRead! - 1_024) % 128).toBe(0);
    // a short prompt is never cached, however often it is sent
    cache.usage(openai(SHORT, "Hi"), 1);
    expect(cache.usage(openai(SHORT, "Hi again"), 1).cacheRead).toBe(0);
  });

  it("Anthropic: a marked prefix is written the first time and read the next, apart from input_tokens", () => {
    const cache = createPromptCache({ enabled: true });
    const first = cache.usage(anthropic(LONG, "Question one?"), 10);
    expect(first.cacheRead).toBe(0);
    expect(first.cacheWrite).toBeGreaterThan(2_000);
    const second = cache.usage(anthropic(LONG, "Another question?"), 10);
    expect(second).toMatchObject({ cacheRead: first.cacheWrite, cacheWrite: 0 });
    // input_tokens counts only what is after the breakpoint
    expect(second.input).toBeLessThan(50);
    expect(second.input + second.cacheRead!).toBeGreaterThan(2_000);
  });

  it("Anthropic: a breakpoint reads what an earlier request wrote up to 20 blocks before it, not further", () => {
    const MARK = { cache_control: { type: "ephemeral" } };
    const turns = (count: number, markLast: boolean) =>
      Array.from({ length: count }, (_, i) => ({
        role: i % 2 === 0 ? "user" : "assistant",
        content: [{ type: "text", text: `turn ${i} of the conversation`, ...(markLast && i === count - 1 ? MARK : {}) }],
      }));
    const conversation = (count: number) => request("anthropic", { system: [{ type: "text", text: LONG }], messages: turns(count, true) });
    const cache = createPromptCache({ enabled: true });
    const first = cache.usage(conversation(3), 1);
    expect(first.cacheRead).toBe(0);
    // the next turn's breakpoint sits two blocks later: the first turn's write is found
    const next = cache.usage(conversation(5), 1);
    expect(next.cacheRead).toBe(first.cacheWrite);
    expect(next.cacheWrite).toBeGreaterThan(0);
    expect(next.cacheWrite).toBeLessThan(100); // the two new turns only
    // 21 blocks on, past the lookback: nothing is read
    expect(cache.usage(conversation(26), 1).cacheRead).toBe(0);
  });

  it("Anthropic caches nothing without a breakpoint, nor a marked prefix under 1,024 tokens", () => {
    const cache = createPromptCache({ enabled: true });
    for (let i = 0; i < 2; i++) {
      expect(cache.usage(anthropic(LONG, `q${i}`, false), 1)).toMatchObject({ cacheRead: 0, cacheWrite: 0 });
      expect(cache.usage(anthropic(SHORT, `q${i}`), 1)).toMatchObject({ cacheRead: 0, cacheWrite: 0 });
    }
  });

  it("switched off, reports the same input with nothing cached", () => {
    const on = createPromptCache({ enabled: true });
    const off = createPromptCache({ enabled: false });
    on.usage(openai(LONG, "one"), 1);
    const cached = on.usage(openai(LONG, "two"), 1);
    off.usage(openai(LONG, "one"), 1);
    expect(off.usage(openai(LONG, "two"), 1)).toEqual({ input: cached.input, output: 1 });
  });
});
