/**
 * Test and eval helper: a responder for the fake model server (fake-model-server.ts)
 * that answers any request as the offline model would — a plan for "compare A, B and
 * C", a sub-agent's findings with `finish`, a synthesis — rendered in the provider's
 * wire format, with usage counted from the request's size and prompt caching
 * simulated the way the providers describe it.
 *
 * Simplifications (faithful in shape, not in every rule):
 * - tokens are characters / 4 of the request's JSON, not a real tokenizer;
 * - OpenAI: the cached part is the longest prefix shared with any earlier request to
 *   the same model, counted only from 1,024 tokens and in steps of 128;
 * - Anthropic: the prompt is read as tools → system → messages, one block at a time;
 *   caches are written only at `cache_control` breakpoints, and the longest prefix an
 *   earlier request wrote that ends at a breakpoint, or at a block boundary up to 20
 *   blocks before one, is a cache read (so a conversation's next turn reads what the
 *   previous turn wrote at its own, earlier, breakpoint); the prefix up to the last
 *   breakpoint, when not yet written, is a cache write beyond what was read; prefixes
 *   under 1,024 tokens are never cached. No expiry (the 5-minute TTL never passes in a run).
 */
import { createHash } from "node:crypto";
import type {
  LanguageModelV3CallOptions,
  LanguageModelV3Message,
  LanguageModelV3Prompt,
  LanguageModelV3TextPart,
  LanguageModelV3ToolCallPart,
} from "@ai-sdk/provider";
import { createOfflineModel } from "../offline-model.ts";
import type { FakeResponder, RecordedRequest, ScriptedTurn, ScriptedUsage } from "./fake-model-server.ts";

const CHARS_PER_TOKEN = 4;
const MIN_CACHED_TOKENS = 1_024;
const OPENAI_CACHE_STEP = 128;
/** Anthropic looks for an earlier write at the block boundaries up to this many blocks before a breakpoint. */
const LOOKBACK_BLOCKS = 20;

const tokens = (chars: number) => Math.ceil(chars / CHARS_PER_TOKEN);

type Json = Record<string, unknown>;
const asArray = (value: unknown): Json[] => (Array.isArray(value) ? (value as Json[]) : []);
const textOfContent = (content: unknown): string =>
  typeof content === "string"
    ? content
    : asArray(content)
        .map((part) => (typeof part.text === "string" ? part.text : ""))
        .join("");

function parseArgs(raw: unknown): unknown {
  if (typeof raw !== "string") return raw ?? {};
  try {
    return JSON.parse(raw);
  } catch {
    return {};
  }
}

/** OpenAI Chat Completions messages as the AI SDK's prompt (what the offline model reads). */
function openaiPrompt(body: Json): LanguageModelV3Prompt {
  const prompt: LanguageModelV3Message[] = [];
  const toolNames = new Map<string, string>();
  for (const message of asArray(body.messages)) {
    if (message.role === "system" || message.role === "developer") {
      prompt.push({ role: "system", content: textOfContent(message.content) });
    } else if (message.role === "user") {
      prompt.push({ role: "user", content: [{ type: "text", text: textOfContent(message.content) }] });
    } else if (message.role === "assistant") {
      const text = textOfContent(message.content);
      const calls = asArray(message.tool_calls).map((call) => {
        const fn = (call.function ?? {}) as Json;
        toolNames.set(String(call.id), String(fn.name));
        return { type: "tool-call" as const, toolCallId: String(call.id), toolName: String(fn.name), input: parseArgs(fn.arguments) };
      });
      prompt.push({ role: "assistant", content: [...(text ? [{ type: "text" as const, text }] : []), ...calls] });
    } else if (message.role === "tool") {
      const id = String(message.tool_call_id);
      const result = {
        type: "tool-result" as const,
        toolCallId: id,
        toolName: toolNames.get(id) ?? "",
        output: { type: "text" as const, value: textOfContent(message.content) },
      };
      // one step's results are one tool message in the SDK's prompt
      const last = prompt.at(-1);
      if (last?.role === "tool") last.content.push(result);
      else prompt.push({ role: "tool", content: [result] });
    }
  }
  return prompt;
}

/** Anthropic Messages (system apart, tool results inside user turns) as the AI SDK's prompt. */
function anthropicPrompt(body: Json): LanguageModelV3Prompt {
  const prompt: LanguageModelV3Message[] = [];
  const system = textOfContent(body.system);
  if (system) prompt.push({ role: "system", content: system });
  const toolNames = new Map<string, string>();
  for (const message of asArray(body.messages)) {
    const parts = typeof message.content === "string" ? [{ type: "text", text: message.content }] : asArray(message.content);
    if (message.role === "assistant") {
      prompt.push({
        role: "assistant",
        content: parts.flatMap((part): (LanguageModelV3TextPart | LanguageModelV3ToolCallPart)[] => {
          if (part.type === "text") return [{ type: "text", text: String(part.text) }];
          if (part.type !== "tool_use") return [];
          toolNames.set(String(part.id), String(part.name));
          return [{ type: "tool-call", toolCallId: String(part.id), toolName: String(part.name), input: part.input }];
        }),
      });
      continue;
    }
    const results = parts.filter((part) => part.type === "tool_result");
    if (results.length > 0) {
      prompt.push({
        role: "tool",
        content: results.map((part) => ({
          type: "tool-result" as const,
          toolCallId: String(part.tool_use_id),
          toolName: toolNames.get(String(part.tool_use_id)) ?? "",
          output:
            part.is_error === true
              ? { type: "error-text" as const, value: textOfContent(part.content) }
              : { type: "text" as const, value: textOfContent(part.content) },
        })),
      });
    }
    const text = parts.filter((part) => part.type === "text").map((part) => String(part.text));
    if (text.length > 0) prompt.push({ role: "user", content: text.map((t) => ({ type: "text" as const, text: t })) });
  }
  return prompt;
}

function toolNamesOf(request: RecordedRequest): string[] {
  return asArray(request.body.tools).map((tool) =>
    request.format === "openai" ? String(((tool.function ?? {}) as Json).name) : String(tool.name),
  );
}

interface Block {
  /** the block as the provider compares it (its cache marker left out) */
  key: string;
  marked: boolean;
}

/** The prompt in the order the provider caches it, one block at a time. */
function blocksOf(request: RecordedRequest): Block[] {
  const block = (value: Json, scope: string): Block => {
    const { cache_control: marker, ...rest } = value;
    return { key: `${scope}:${JSON.stringify(rest)}`, marked: marker != null };
  };
  const body = request.body;
  const head = [{ key: `model:${String(body.model)}`, marked: false }];
  if (request.format === "openai") {
    return [...head, ...asArray(body.tools).map((tool) => block(tool, "tool")), ...asArray(body.messages).map((m) => block(m, "message"))];
  }
  const system = typeof body.system === "string" ? [{ type: "text", text: body.system }] : asArray(body.system);
  const messages = asArray(body.messages).flatMap((message) =>
    (typeof message.content === "string" ? [{ type: "text", text: message.content }] : asArray(message.content)).map((part) =>
      block(part, String(message.role)),
    ),
  );
  return [...head, ...asArray(body.tools).map((tool) => block(tool, "tool")), ...system.map((part) => block(part, "system")), ...messages];
}

/** Prompt caching across requests, per fake server: what each provider would report as cached. */
export interface PromptCache {
  /** usage in the provider's own terms (OpenAI: input includes cached; Anthropic: input excludes reads and writes) */
  usage(request: RecordedRequest, outputTokens: number): ScriptedUsage;
}

export function createPromptCache(options: { enabled: boolean }): PromptCache {
  const openaiPrompts: string[] = [];
  const anthropicWritten = new Set<string>();
  const hash = (text: string) => createHash("sha256").update(text).digest("hex");

  function openaiCached(prompt: string): number {
    let longest = 0;
    for (const earlier of openaiPrompts) {
      const limit = Math.min(earlier.length, prompt.length);
      let shared = 0;
      while (shared < limit && earlier.charCodeAt(shared) === prompt.charCodeAt(shared)) shared += 1;
      longest = Math.max(longest, shared);
    }
    openaiPrompts.push(prompt);
    const cached = Math.floor(longest / CHARS_PER_TOKEN);
    if (cached < MIN_CACHED_TOKENS) return 0;
    return MIN_CACHED_TOKENS + Math.floor((cached - MIN_CACHED_TOKENS) / OPENAI_CACHE_STEP) * OPENAI_CACHE_STEP;
  }

  return {
    usage(request, output) {
      const blocks = blocksOf(request);
      const total = tokens(blocks.reduce((sum, block) => sum + block.key.length, 0));
      if (!options.enabled) return { input: total, output };
      if (request.format === "openai") {
        const cacheRead = Math.min(total, openaiCached(blocks.map((block) => block.key).join("")));
        return { input: total, output, cacheRead };
      }
      // every block boundary's prefix, as text size and identity
      const prefixes: { tokens: number; id: string; marked: boolean }[] = [];
      let prefix = "";
      for (const block of blocks) {
        prefix += block.key;
        prefixes.push({ tokens: tokens(prefix.length), id: hash(prefix), marked: block.marked });
      }
      const cacheable = (at: number) => prefixes[at].tokens >= MIN_CACHED_TOKENS;
      // a read: the longest prefix an earlier request wrote that ends at a breakpoint or
      // at most LOOKBACK_BLOCKS blocks before one (the provider checks those boundaries)
      let hit: (typeof prefixes)[number] | undefined;
      prefixes.forEach((point, at) => {
        if (!point.marked) return;
        for (let back = at; back >= Math.max(0, at - LOOKBACK_BLOCKS); back--) {
          if (!cacheable(back) || !anthropicWritten.has(prefixes[back].id)) continue;
          if (!hit || prefixes[back].tokens > hit.tokens) hit = prefixes[back];
          break;
        }
      });
      // a write: only at breakpoints, the part of the last one beyond what was read
      const marked = prefixes.filter((point, at) => point.marked && cacheable(at));
      const last = marked.at(-1);
      const cacheRead = hit?.tokens ?? 0;
      const cacheWrite = last && !anthropicWritten.has(last.id) ? last.tokens - cacheRead : 0;
      for (const point of marked) anthropicWritten.add(point.id);
      return { input: total - cacheRead - cacheWrite, output, cacheRead, cacheWrite };
    },
  };
}

/**
 * A responder answering every request with the offline model's decision, usage counted
 * from the request and cached as `cache` says (off: the fake reports no cache at all).
 */
export function offlineResponder(options: { cache: boolean }): FakeResponder {
  const model = createOfflineModel();
  const cache = createPromptCache({ enabled: options.cache });
  let callCount = 0;
  return async (request) => {
    const prompt = request.format === "openai" ? openaiPrompt(request.body) : anthropicPrompt(request.body);
    const call: LanguageModelV3CallOptions = {
      prompt,
      tools: toolNamesOf(request).map((name) => ({ type: "function", name, inputSchema: { type: "object" } })),
    };
    const result = await model.doGenerate(call);
    const text = result.content.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("");
    const calls = result.content.flatMap((part) =>
      part.type === "tool-call" ? [{ id: `call_fake_${++callCount}`, name: part.toolName, args: part.input }] : [],
    );
    const usage = cache.usage(request, result.usage.outputTokens.total ?? 0);
    const turn: ScriptedTurn = calls.length > 0 ? { kind: "tools", text, calls, usage } : { kind: "text", text, usage };
    return turn;
  };
}
