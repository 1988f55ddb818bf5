/**
 * The offline model: a deterministic LanguageModelV3 with no network, so the
 * demo works without an API key and the executor can be tested end to end.
 *
 * It behaves like a model would, from what the prompt shows it: which tools it
 * was offered (create_plan → plan or answer; decide → decision; finish /
 * ask_user → sub-agent; none → synthesis) and the sections of the first user
 * message (see prompt.ts). Directives (`@offline …`, offline-directives.ts)
 * simulate work, failures and forms.
 */
import { APICallError } from "ai";
import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3Content,
  LanguageModelV3FinishReason,
  LanguageModelV3GenerateResult,
  LanguageModelV3Message,
  LanguageModelV3StreamPart,
  LanguageModelV3Usage,
} from "@ai-sdk/provider";
import { deriveSummary, extractItems, parseDirective, stripDirectives, type OfflineDirective } from "./offline-directives.ts";
import { parseRoster, readSection, SECTION } from "./prompt.ts";
import { truncateText } from "../core/text.ts";

/** What the runner may tell the offline model through `providerOptions.offline`. */
export interface OfflineCallOptions {
  /** identifies a plan step across its attempts (for fail_attempts) */
  stepKey?: string;
  /** the executor's attempt number, when known (1-based); wins over counting */
  attempt?: number;
}

export interface OfflineModelOptions {
  /** abortable sleep; tests may inject a fake */
  sleep?: (ms: number, signal: AbortSignal | undefined) => Promise<void>;
  /** characters per streamed text delta */
  chunkSize?: number;
}

/** `rawInput`: the arguments as sent, unparsed (a malformed call); `refused`: the content filter stopped the output. */
type Planned = { text: string; toolCalls: { toolName: string; input: unknown; rawInput?: string }[]; refused?: boolean };

/** Arguments no JSON parser accepts: the model's malformed tool call (fail=malformed). */
const MALFORMED_ARGUMENTS = '{"summary": ';

function isBehaviourFailure(fail: OfflineDirective["fail"]): fail is "malformed" | "refuse" {
  return fail === "malformed" || fail === "refuse";
}

function abortError(): Error {
  const error = new Error("The operation was aborted.");
  error.name = "AbortError";
  return error;
}

/**
 * Waits `ms` by the clock, ending within a turn of the event loop after it. A timer alone
 * is counted in whole milliseconds from the loop's clock, which is as old as the turn
 * that set it: `setTimeout(30)` may end after 29.3 ms by `performance.now()`, or after
 * 31. Waiting out an early end with another timer made the offline model's calls 0.9 ms
 * longer than asked on average (0.6 median), time the benchmarks counted as Baton's. So
 * the timer is set to wake a millisecond early, and the rest is waited turn by turn: the
 * loop keeps serving everything else meanwhile, but spins, about 0.6 ms of CPU a call in
 * the benchmark's DAGs. A provider's reply costs no such CPU; this is the stand-in's price
 * for ending on time.
 */
export function abortableSleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  if (signal?.aborted) return Promise.reject(abortError());
  if (ms <= 0) return Promise.resolve();
  const until = performance.now() + ms;
  return new Promise((resolve, reject) => {
    let timer: NodeJS.Timeout | undefined;
    let turn: NodeJS.Immediate | undefined;
    const onAbort = () => {
      clearTimeout(timer);
      clearImmediate(turn);
      reject(abortError());
    };
    const wait = () => {
      const left = until - performance.now();
      if (left <= 0) {
        signal?.removeEventListener("abort", onAbort);
        resolve();
      } else if (left > 2) timer = setTimeout(wait, Math.floor(left) - 1);
      else turn = setImmediate(wait);
    };
    wait();
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

function textOf(message: LanguageModelV3Message): string {
  if (message.role === "system") return message.content;
  return message.content
    .map((part) => (part.type === "text" ? part.text : part.type === "tool-call" ? JSON.stringify(part.input) : ""))
    .join("");
}

function toolResultText(output: unknown): string {
  const value = (output as { value?: unknown })?.value;
  return typeof value === "string" ? value : JSON.stringify(value ?? "");
}

/** Estimated tokens: four characters each, the usual rule of thumb. */
export function estimateTokens(chars: number): number {
  return Math.ceil(chars / 4);
}

function usage(inputChars: number, outputChars: number): LanguageModelV3Usage {
  const input = estimateTokens(inputChars);
  const output = estimateTokens(outputChars);
  return {
    inputTokens: { total: input, noCache: input, cacheRead: 0, cacheWrite: 0 },
    outputTokens: { total: output, text: output, reasoning: 0 },
  };
}

function simulatedFailure(kind: "transient" | "fatal"): APICallError {
  return new APICallError({
    message:
      kind === "transient"
        ? "offline: simulated transient failure (503 service unavailable)"
        : "offline: simulated fatal failure (400 bad request)",
    url: "offline://model",
    requestBodyValues: {},
    statusCode: kind === "transient" ? 503 : 400,
    isRetryable: kind === "transient",
  });
}

function findLastIndex<T>(items: readonly T[], predicate: (item: T) => boolean): number {
  for (let i = items.length - 1; i >= 0; i--) if (predicate(items[i])) return i;
  return -1;
}

export function createOfflineModel(options: OfflineModelOptions = {}): LanguageModelV3 {
  const sleep = options.sleep ?? abortableSleep;
  const chunkSize = options.chunkSize ?? 24;
  // attempts seen per step, for fail_attempts when the runner cannot say
  const attemptsByStep = new Map<string, number>();

  function plan(call: LanguageModelV3CallOptions): { planned: Planned; directive: OfflineDirective } {
    const prompt = call.prompt;
    const toolNames = new Set((call.tools ?? []).map((tool) => tool.name));
    // the run's own message is the last user message with a task; turns before it are
    // the conversation's history (conversation-context.ts), turns after it this run's work
    const ownAt = findLastIndex(prompt, (message) => message.role === "user" && textOf(message).includes(SECTION.task));
    const own = ownAt >= 0 ? prompt[ownAt] : prompt.find((message) => message.role === "user");
    const context = own ? textOf(own) : "";
    const task = readSection(context, SECTION.task) ?? context;
    const failed = readSection(context, SECTION.failedStep) ?? "";
    const directive = parseDirective(`${task}\n${failed}`);
    const isFirstCall = !prompt.slice(Math.max(0, ownAt)).some((message) => message.role === "assistant");
    const last = prompt[prompt.length - 1];
    const lastResults = last?.role === "tool" ? last.content.filter((part) => part.type === "tool-result") : [];

    // the planner and the decider ignore fail: a directive in a request (or in the failed
    // step's input the decider is shown) is meant for the steps it reaches through {{request}}
    const planning = toolNames.has("create_plan") || toolNames.has("decide");
    const offline = (call.providerOptions?.offline ?? {}) as OfflineCallOptions;
    const key = offline.stepKey ?? task;
    if (isFirstCall && directive.fail && !planning) {
      const attempt = offline.attempt ?? (attemptsByStep.get(key) ?? 0) + 1;
      attemptsByStep.set(key, attempt);
      const failing = directive.failAttempts == null || attempt <= directive.failAttempts;
      if (failing && !isBehaviourFailure(directive.fail)) throw simulatedFailure(directive.fail);
    }
    // a misbehaving model misbehaves on every call of a failing attempt, not only the first
    if (isBehaviourFailure(directive.fail) && !planning) {
      const attempt = offline.attempt ?? attemptsByStep.get(key) ?? 1;
      if (directive.failAttempts == null || attempt <= directive.failAttempts) {
        const tool = toolNames.has("finish") ? "finish" : [...toolNames][0];
        if (directive.fail === "refuse" || tool === undefined) return { directive, planned: { text: "", toolCalls: [], refused: true } };
        return { directive, planned: { text: "", toolCalls: [{ toolName: tool, input: null, rawInput: MALFORMED_ARGUMENTS }] } };
      }
    }

    // A turn after our own tool calls: close the conversation, except for the
    // form answer, which is what a blocked sub-agent was waiting for.
    const answer = lastResults.find((part) => part.toolName === "ask_user");
    if (answer) {
      const answerText = toolResultText(answer.output);
      const summary = `${directive.summary ?? deriveSummary(task).replace(/\.$/, "")} (answer: ${answerText})`;
      return {
        directive,
        planned: {
          text: `Thanks — continuing with your answer: **${answerText}**.\n\n${summary}`,
          toolCalls: toolNames.has("finish") ? [{ toolName: "finish", input: { summary, files: [] } }] : [],
        },
      };
    }
    if (lastResults.length > 0) {
      const rejected = lastResults.find((part) => part.output.type === "error-text" || part.output.type === "error-json");
      return {
        directive,
        planned: {
          text: rejected ? `I could not complete that: ${toolResultText(rejected.output)}` : "Done.",
          toolCalls: [],
        },
      };
    }

    if (toolNames.has("decide")) return { directive, planned: decide(directive, failed) };
    // the roster is in the system prompt (prompt.ts)
    const system = prompt.find((message) => message.role === "system");
    if (toolNames.has("create_plan")) return { directive, planned: commanderChat(`${system ? textOf(system) : ""}\n\n${context}`, task) };
    if (toolNames.has("finish") || toolNames.has("ask_user")) return { directive, planned: subAgent(task, directive, toolNames) };
    return { directive, planned: synthesis(task, directive) };
  }

  async function respond(call: LanguageModelV3CallOptions) {
    const { planned, directive } = plan(call);
    // sleep after deciding, so a fail directive fails fast and sleep simulates the work
    if (directive.sleepMs > 0) await sleep(directive.sleepMs, call.abortSignal);
    if (call.abortSignal?.aborted) throw abortError();
    const inputChars = call.prompt.reduce((sum, message) => sum + textOf(message).length, 0);
    const calls = planned.toolCalls.map((toolCall, i) => ({
      toolCallId: `offline-call-${i + 1}`,
      toolName: toolCall.toolName,
      input: toolCall.rawInput ?? JSON.stringify(toolCall.input),
    }));
    const outputChars = planned.text.length + calls.reduce((sum, c) => sum + c.input.length, 0);
    return { planned, calls, usage: usage(inputChars, outputChars), pauseMs: directive.pauseMs };
  }

  return {
    specificationVersion: "v3",
    provider: "offline",
    modelId: "offline",
    supportedUrls: {},

    async doGenerate(call): Promise<LanguageModelV3GenerateResult> {
      const { planned, calls, usage: used } = await respond(call);
      const content: LanguageModelV3Content[] = [];
      if (planned.text) content.push({ type: "text", text: planned.text });
      for (const c of calls) content.push({ type: "tool-call", ...c });
      return {
        content,
        finishReason: finishReasonOf(planned, calls.length),
        usage: used,
        warnings: [],
      };
    },

    async doStream(call) {
      const { planned, calls, usage: used, pauseMs } = await respond(call);
      const parts: LanguageModelV3StreamPart[] = [{ type: "stream-start", warnings: [] }];
      // with pause=, the stream waits after the first half of the text (where a stop finds a partial answer)
      let pauseAfter = -1;
      parts.push({ type: "response-metadata", id: "offline-response", modelId: "offline", timestamp: new Date(0) });
      if (planned.text) {
        parts.push({ type: "text-start", id: "t1" });
        const half = Math.floor(planned.text.length / 2);
        for (let i = 0; i < planned.text.length; i += chunkSize) {
          parts.push({ type: "text-delta", id: "t1", delta: planned.text.slice(i, i + chunkSize) });
          if (pauseMs > 0 && pauseAfter < 0 && i + chunkSize >= half) pauseAfter = parts.length;
        }
        parts.push({ type: "text-end", id: "t1" });
      }
      for (const c of calls) {
        parts.push({ type: "tool-input-start", id: c.toolCallId, toolName: c.toolName });
        parts.push({ type: "tool-input-delta", id: c.toolCallId, delta: c.input });
        parts.push({ type: "tool-input-end", id: c.toolCallId });
        parts.push({ type: "tool-call", ...c });
      }
      parts.push({
        type: "finish",
        usage: used,
        finishReason: finishReasonOf(planned, calls.length),
      });
      const stream = new ReadableStream<LanguageModelV3StreamPart>({
        async start(controller) {
          for (const [i, part] of parts.entries()) {
            if (i === pauseAfter) {
              try {
                await sleep(pauseMs, call.abortSignal);
              } catch (error) {
                controller.error(error);
                return;
              }
            }
            controller.enqueue(part);
          }
          controller.close();
        },
      });
      return { stream };
    },
  };
}

function finishReasonOf(planned: Planned, calls: number): LanguageModelV3FinishReason {
  if (planned.refused) return { unified: "content-filter", raw: "content_filter" };
  return { unified: calls > 0 ? "tool-calls" : "stop", raw: undefined };
}

function commanderChat(context: string, task: string): Planned {
  const items = extractItems(task);
  const subAgents = parseRoster(context).filter((member) => member.role === "sub_agent");
  const question = stripDirectives(task);
  if (items.length < 2 || subAgents.length === 0) {
    const clipped = truncateText(question, 200, { ellipsis: "…" });
    return {
      text: `(offline commander) You asked: "${clipped}". This needs no plan — here is a short answer: noted, and happy to help further.`,
      toolCalls: [],
    };
  }
  const steps = items.map((item, i) => ({
    index: i + 1,
    title: `Research ${item}`,
    assignee: subAgents[i % subAgents.length].handle,
    // objective, boundary and expected output, as the plan critic asks of a brief
    input: `Cover "${item}" for this request, and nothing else.\nReturn a short summary of your findings.\n{{request}}`,
    wait_for: [] as number[],
  }));
  const synthesisIndex = items.length + 1;
  const rawPlan = {
    // a plan's title holds at most 200 characters: a long list is named by its start and count
    title:
      items.join(", ").length <= 190
        ? `Plan: ${items.join(", ")}`
        : `Plan: ${items.length} items (${truncateText(items.join(", "), 151, { ellipsis: "…" })})`,
    steps: [
      ...steps,
      {
        index: synthesisIndex,
        title: "Synthesize the findings",
        assignee: "commander",
        input: [
          "Synthesize the findings into one answer to: {{request}}",
          "",
          ...items.map((item, i) => `- ${item}: {{step_${i + 1}.output_summary}}`),
        ].join("\n"),
        wait_for: steps.map((step) => step.index),
      },
    ],
  };
  return {
    text: `I'll split this into ${items.length} parallel steps (${items.join(", ")}) and a synthesis.`,
    toolCalls: [{ toolName: "create_plan", input: rawPlan }],
  };
}

/** block=typed: one field of every kind a form can have, for trying them all in a browser. */
export const TYPED_FORM_FIELDS = [
  { name: "venue", label: "Venue", type: "text", required: true },
  { name: "notes", label: "Notes", type: "textarea", required: false },
  { name: "size", label: "Group size", type: "select", required: true, options: ["small", "medium", "large"] },
  { name: "budget", label: "Budget (EUR)", type: "number", required: true },
  { name: "outdoor", label: "Outdoors?", type: "boolean", required: true },
  { name: "api_key", label: "Booking API key", type: "text", required: false, secret: true },
];

function subAgent(task: string, directive: OfflineDirective, toolNames: Set<string>): Planned {
  if (directive.block && toolNames.has("ask_user")) {
    return {
      text: "I need one thing from a person before I can continue.",
      toolCalls: [
        {
          toolName: "ask_user",
          input: {
            title: directive.blockTyped
              ? "Which venue should the picnic use?"
              : directive.blockSecret
                ? "Credential needed"
                : "Input needed",
            fields: directive.blockTyped
              ? TYPED_FORM_FIELDS
              : directive.blockSecret
                ? [{ name: "token", label: "Access token", type: "text", required: true, secret: true }]
                : [{ name: "answer", label: "Your answer", type: "text", required: true }],
          },
        },
      ],
    };
  }
  const summary = directive.summary ?? deriveSummary(task);
  const topic = stripDirectives(task).split("\n")[0]?.trim() || "the task";
  const text = `### Findings\n\n- Topic: ${topic}\n- Result: ${summary}\n\n_(offline model: deterministic placeholder answer)_`;
  const toolCalls: Planned["toolCalls"] = [];
  // in a workspace slot (server/workspace) the findings become a file, so the step's result is a change
  if (toolNames.has("slot_write")) toolCalls.push({ toolName: "slot_write", input: findingsFile(topic, summary, directive.file) });
  if (toolNames.has("finish")) toolCalls.push({ toolName: "finish", input: { summary, files: [] } });
  return { text, toolCalls };
}

/**
 * `findings/<item>.md` for a step about one item (`Cover "alpha" …`), so parallel steps
 * write different files; `file=PATH` makes them all write one file (a merge conflict).
 */
export function findingsFile(topic: string, summary: string, file: string | null = null): { path: string; content: string } {
  const item = /"([^"]+)"/.exec(topic)?.[1] ?? topic;
  const slug =
    item
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-+|-+$/g, "")
      .slice(0, 60) || "notes";
  return { path: file ?? `findings/${slug}.md`, content: `# ${item}\n\n${summary}\n` };
}

function synthesis(task: string, directive: OfflineDirective): Planned {
  const bullets = stripDirectives(task)
    .split("\n")
    .filter((line) => /^\s*[-*]\s+/.test(line))
    .map((line) => line.trim());
  const body = bullets.length > 0 ? bullets.join("\n") : `> ${stripDirectives(task).replace(/\n/g, "\n> ")}`;
  const lead = directive.summary ?? `Synthesis of ${bullets.length || 1} finding${bullets.length === 1 ? "" : "s"}.`;
  return { text: `## Synthesis\n\n${lead}\n\n${body}`, toolCalls: [] };
}

function decide(directive: OfflineDirective, failed: string): Planned {
  const kind = directive.decision ?? "skip";
  const stepMatch = /Step (\d+)/.exec(failed);
  const reason = `offline commander decided to ${kind}`;
  return {
    text: `Decision${stepMatch ? ` for step ${stepMatch[1]}` : ""}: ${kind}.`,
    toolCalls: [{ toolName: "decide", input: kind === "retry" ? { kind } : { kind, reason } }],
  };
}
