/**
 * One run's bookkeeping and what a runner is built from: shared by the run loop
 * (run-agent.ts) and the helpers that build its tools and its result (run-finish.ts).
 */
import type { LanguageModelV3 } from "@ai-sdk/provider";
import { wrapLanguageModel, type ModelMessage, type ToolSet } from "ai";
import { startConfirmed, type RunRequest, type RunSink } from "../ports/executor.ts";
import type { ProviderCircuits } from "./circuit-breaker.ts";
import type { Summarizer } from "./compaction.ts";
import type { DeltaBatcherOptions } from "./delta-batcher.ts";
import type { McpConnector } from "./mcp.ts";
import type { ModelRegistry } from "./model-registry.ts";
import type { ArtifactStore, ConversationMemory, SessionStore } from "../ports/agents.ts";
import type { RetryTiming } from "./retry.ts";
import type { PlanValidator, RunToolState } from "./tools.ts";
import type { PlanStatusReader } from "../ports/agents.ts";

export interface AgentRunnerDeps {
  models: Pick<ModelRegistry, "resolve" | "cost" | "contextBudget" | "isSimulated">;
  artifacts: ArtifactStore;
  sessions: SessionStore;
  /** validatePlan from server/core; without it every plan is accepted (the executor validates anyway) */
  validatePlan?: PlanValidator;
  /** opens the agent's MCP servers; default: the MCP SDK client */
  mcp?: McpConnector;
  retry?: Partial<RetryTiming>;
  maxSteps?: number;
  deltaBatching?: DeltaBatcherOptions;
  /** default: the run's own model, with an extractive fallback */
  summarize?: Summarizer;
  /** the conversation, for the runs that take part in it; without it every run sees only its own message */
  memory?: ConversationMemory;
  chunkTimeoutMs?: number;
  /**
   * the process's per-model circuit breakers: while a model's circuit is open, runs
   * wait for it instead of calling it (none: no breaker)
   */
  circuits?: ProviderCircuits;
  /** workspace: the slot tools of a run that works in a git slot (server/workspace/workspace-runner.ts) */
  extraTools?: (request: RunRequest) => ToolSet | undefined;
  /** what the commander's plan_status tool reads (none: the commander has no plan_status) */
  plans?: PlanStatusReader;
}

export type StepOutcome = { text: string };

/** Mutable bookkeeping of one run, shared by the loop's helpers. */
export interface RunContext {
  request: RunRequest;
  sink: RunSink;
  tools: RunToolState;
  /** the full session: never compacted */
  messages: ModelMessage[];
  steps: StepOutcome[];
  tokensIn: number;
  tokensOut: number;
  /** input tokens the provider read from its prompt cache (Anthropic) */
  cacheReadTokens: number;
  /** input tokens the provider wrote to its prompt cache (Anthropic) */
  cacheWriteTokens: number;
  /** part of the usage is estimated (a model call cut mid-stream reports none) */
  usageEstimated: boolean;
  malformedToolCalls: number;
  /** the provider's content filter stopped the model's output (finish reason content-filter) */
  refused: boolean;
  model: ModelTiming;
  /** the run ends waiting for a person's answer */
  blocked: boolean;
}

/** When the model itself worked: what the run's time minus this is Baton's. */
export interface ModelTiming {
  calls: number;
  firstStartedAt: number | null;
  lastEndedAt: number | null;
}

/**
 * The model as the run loop sees it, stamping when each streamed call begins and when
 * its stream ends. The stamps go to the execution log ("model-timing"), which is how
 * the benchmark tells a hop's overhead from the model's own time.
 */
export function timedModel(model: LanguageModelV3, timing: ModelTiming, request: Pick<RunRequest, "confirmed">): LanguageModelV3 {
  return wrapLanguageModel({
    model,
    middleware: {
      specificationVersion: "v3",
      wrapStream: async ({ doStream }) => {
        // a run started early sends its request only once it is this process's to run
        await mustBeStarted(request);
        timing.calls += 1;
        timing.firstStartedAt ??= Date.now();
        const result = await doStream();
        return { ...result, stream: onClose(result.stream, () => void (timing.lastEndedAt = Date.now())) };
      },
    },
  });
}

/** Waits for a run started early to be confirmed (RunRequest.confirmed); throws an abort when it is not. */
export async function mustBeStarted(request: Pick<RunRequest, "confirmed">): Promise<void> {
  if (!(await startConfirmed(request))) throw new DOMException("the run was not started here", "AbortError");
}

/**
 * The same parts, in order, calling `closed` when the source ends (not when it fails or is
 * cancelled). One pull-driven ReadableStream instead of a TransformStream and a pipe: Node
 * builds three streams for a TransformStream, and pipeThrough adds a promise chain per part.
 */
function onClose<T>(source: ReadableStream<T>, closed: () => void): ReadableStream<T> {
  const reader = source.getReader();
  return new ReadableStream<T>(
    {
      async pull(controller) {
        const { done, value } = await reader.read();
        if (!done) return controller.enqueue(value);
        closed();
        controller.close();
      },
      cancel: (reason) => reader.cancel(reason),
    },
    { highWaterMark: 0 },
  );
}

export function logModelTiming(sink: RunSink, timing: ModelTiming): void {
  if (timing.firstStartedAt === null) return;
  const workedMs = timing.lastEndedAt === null ? null : timing.lastEndedAt - timing.firstStartedAt;
  sink.log({
    phase: "model-timing",
    message: `${timing.calls} model call${timing.calls === 1 ? "" : "s"}${workedMs === null ? "" : `, ${workedMs} ms`}`,
    data: {
      calls: timing.calls,
      firstCallStartedAt: new Date(timing.firstStartedAt).toISOString(),
      lastCallEndedAt: timing.lastEndedAt === null ? null : new Date(timing.lastEndedAt).toISOString(),
    },
  });
}
