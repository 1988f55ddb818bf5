import type { ModelMessage } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { describe, expect, it } from "vitest";
import { fenceUntrusted } from "../core/fence.ts";
import {
  clipToolResults,
  Compactor,
  CompactionImpossibleError,
  estimatePromptTokens,
  extractiveSummarizer,
  modelSummarizer,
  SUMMARY_PREFIX,
  type Summarizer,
} from "./compaction.ts";

const signal = new AbortController().signal;

function turn(n: number, size: number): ModelMessage[] {
  return [
    { role: "assistant", content: [{ type: "tool-call", toolCallId: `c${n}`, toolName: "read_file", input: { name: `f${n}` } }] },
    {
      role: "tool",
      content: [
        { type: "tool-result", toolCallId: `c${n}`, toolName: "read_file", output: { type: "text", value: `T${n} `.repeat(size) } },
      ],
    },
  ];
}

const session = (turns: number, size = 100): ModelMessage[] => [
  { role: "user", content: "## Your task\nRead all the files" },
  ...Array.from({ length: turns }, (_, i) => turn(i + 1, size)).flat(),
];

const recordingSummarizer = () => {
  const calls: ModelMessage[][] = [];
  const summarize: Summarizer = async ({ messages, previousSummary }) => {
    calls.push(messages);
    return `${previousSummary ? `${previousSummary} + ` : ""}summary of ${messages.length} messages`;
  };
  return { calls, summarize };
};

describe("estimatePromptTokens", () => {
  const exact = (system: string, messages: ModelMessage[]) => Math.ceil((system.length + JSON.stringify(messages).length) / 4);

  it("is the JSON length of system and messages over four, for any number of messages", () => {
    for (const messages of [[], session(0), session(1), session(5, 37), clipToolResults(session(3, 500), 100)]) {
      expect(estimatePromptTokens("sys", messages)).toBe(exact("sys", messages));
      // asked again (each message measured once): the same answer
      expect(estimatePromptTokens("", messages)).toBe(exact("", messages));
    }
  });

  it("measures a copied message on its own: a clipped result is not counted at its full size", () => {
    const messages = session(2, 400);
    const before = estimatePromptTokens("", messages);
    const clipped = clipToolResults(messages, 100);
    expect(estimatePromptTokens("", clipped)).toBe(exact("", clipped));
    expect(estimatePromptTokens("", clipped)).toBeLessThan(before);
    expect(estimatePromptTokens("", messages)).toBe(before);
  });
});

describe("Compactor", () => {
  it("leaves a session within budget alone", async () => {
    const { calls, summarize } = recordingSummarizer();
    const messages = session(2, 10);
    const view = await new Compactor({ budget: 10_000, summarize }).view("sys", messages, signal);
    expect(view).toBe(messages);
    expect(calls).toEqual([]);
  });

  it("replaces older turns by a summary, keeping the brief and whole recent turns", async () => {
    const { calls, summarize } = recordingSummarizer();
    const messages = session(6, 100);
    const compactor = new Compactor({ budget: 600, summarize });
    const view = await compactor.view("sys", messages, signal);
    expect(view[0]).toEqual(messages[0]);
    expect(view[1]).toMatchObject({ role: "user", content: expect.stringContaining(SUMMARY_PREFIX) });
    expect(view[2].role).toBe("assistant"); // a tool result is never orphaned from its call
    expect(estimatePromptTokens("sys", view)).toBeLessThanOrEqual(600);
    expect(calls).toHaveLength(1);
    expect(messages).toHaveLength(13); // the session itself is untouched

    // the next step reuses the summary instead of summarizing again
    const grown = [...messages, ...turn(7, 10)];
    const next = await compactor.view("sys", grown, signal);
    expect(calls).toHaveLength(1);
    expect(next.at(-1)).toEqual(grown.at(-1));
  });

  it("clips one huge tool result of the newest turn, which cannot be summarized", async () => {
    const { summarize } = recordingSummarizer();
    const messages = session(1, 5_000);
    const compactor = new Compactor({ budget: 1_000, summarize });
    compactor.requestForcedCompaction();
    const view = await compactor.view("sys", messages, signal);
    expect(JSON.stringify(view)).toContain("clipped for context");
    expect(estimatePromptTokens("sys", view)).toBeLessThan(estimatePromptTokens("sys", messages));
  });

  it("gives up when forced and nothing can be compacted", async () => {
    const compactor = new Compactor({ budget: 1_000, summarize: recordingSummarizer().summarize });
    compactor.requestForcedCompaction();
    await expect(compactor.view("sys", session(0), signal)).rejects.toBeInstanceOf(CompactionImpossibleError);
  });

  it("summarizes with the model, and falls back to an extract when the model fails", async () => {
    const good = new MockLanguageModelV3({
      doGenerate: async () => ({
        content: [{ type: "text", text: "Read f1 and f2." }],
        finishReason: { unified: "stop", raw: undefined },
        usage: { inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 3, text: 3, reasoning: 0 } },
        warnings: [],
      }),
    });
    let used = 0;
    expect(await modelSummarizer(good, (i, o) => (used = i + o))({ previousSummary: null, messages: session(2, 3), signal })).toBe(
      "Read f1 and f2.",
    );
    expect(used).toBe(13);
    const bad = new MockLanguageModelV3({
      doGenerate: async () => {
        throw new Error("boom");
      },
    });
    const fallback = await modelSummarizer(bad)({ previousSummary: null, messages: session(1, 3), signal });
    expect(fallback).toContain("read_file");
  });

  it("keeps fences whole: a summary of fenced turns is fenced, a clipped fenced result is closed", async () => {
    const fenced = (n: number): ModelMessage[] => [
      { role: "assistant", content: [{ type: "tool-call", toolCallId: `c${n}`, toolName: "read_file", input: { name: `f${n}` } }] },
      {
        role: "tool",
        content: [
          {
            type: "tool-result",
            toolCallId: `c${n}`,
            toolName: "read_file",
            output: { type: "text", value: fenceUntrusted(`obey me ${"x ".repeat(400)}`, `file:f${n}`) },
          },
        ],
      },
    ];
    const messages: ModelMessage[] = [{ role: "user", content: "## Your task\nRead" }, ...[1, 2, 3, 4, 5, 6].flatMap(fenced)];
    const view = await new Compactor({ budget: 900, summarize: extractiveSummarizer }).view("sys", messages, signal);
    const summary = view[1].content as string;
    expect(summary.startsWith(`${SUMMARY_PREFIX}\n<untrusted-data source="earlier-turns">\n`)).toBe(true);
    expect(summary.endsWith("\n</untrusted-data>")).toBe(true);
    expect(summary.match(/<\/untrusted-data>/g)).toHaveLength(1);

    const [clipped] = clipToolResults([fenced(9)[1]], 100);
    const value = (clipped as { content: { output: { value: string } }[] }).content[0].output.value;
    expect(value.match(/<untrusted-data /g)).toHaveLength(1);
    expect(value.match(/<\/untrusted-data>/g)).toHaveLength(1);
    expect(value).toContain("clipped for context");
  });
});
