/**
 * The agent run loop: one AgentRunner.run = one full agent run (DESIGN rule 5)
 * — streaming, tools, compaction, in-run retries of transient model errors,
 * and a session that can block on a form and resume.
 *
 * The runner stores nothing the executor owns: it returns the result and
 * streams through the sink. It does store the model session (SessionStore),
 * which only it can read.
 */
import type { LanguageModelV3StreamPart } from "@ai-sdk/provider";
import {
  InvalidToolInputError,
  NoSuchToolError,
  stepCountIs,
  streamText,
  wrapLanguageModel,
  type ModelMessage,
  type StopCondition,
  type ToolSet,
} from "ai";
import type { LanguageModelV3 } from "@ai-sdk/provider";
import type { AgentRunner, AgentRunResult, RunRequest, RunSink, Usage } from "../executor/ports.ts";
import { Compactor, CompactionImpossibleError, modelSummarizer, type Summarizer } from "./compaction.ts";
import { DEFAULT_DELTA_BATCHING, DeltaBatcher, type DeltaBatcherOptions } from "./delta-batcher.ts";
import { connectMcpServers, parseMcpServers, type McpConnector, type McpSession } from "./mcp.ts";
import { parseModelId, type ModelRegistry } from "./model-registry.ts";
import { ProviderUnavailableError, type CallTicket, type ProviderCircuits } from "./circuit-breaker.ts";
import { abortableSleep, type OfflineCallOptions } from "./offline-model.ts";
import type { ArtifactStore, ConversationMemory, SessionStore } from "./ports.ts";
import { containsFenceMarker } from "../core/fence.ts";
import { buildHistoryTurns, HISTORY_BUDGET_SHARE, seesConversation } from "./conversation-context.ts";
import { buildSystemPrompt, buildUserMessage } from "./prompt.ts";
import { classifyModelError, DEFAULT_RETRY_POLICY, describeError, retryDelayMs, type RetryPolicy, explainModelError } from "./retry.ts";
import { SecretRedactor } from "./secrets.ts";
import { findPendingAskUser, resumeSession } from "./session.ts";
import {
  BUILTIN_TOOL_NAMES,
  controlTools,
  createBuiltinTools,
  createToolState,
  isToolAllowed,
  MAX_PLAN_REJECTIONS,
  ToolNotAllowedError,
  type PlanValidator,
  type RunToolState,
} from "./tools.ts";

export const DEFAULT_MAX_STEPS = 24;
/**
 * A stream that sends nothing for this long is treated as cut (transient).
 * The AI SDK measures it between stream parts, tool executions included, so it
 * must exceed the slowest tool call.
 */
export const DEFAULT_CHUNK_TIMEOUT_MS = 180_000;
/** Length of a summary taken from the final text when the agent did not call finish. */
export const TEXT_SUMMARY_CHARS = 300;
/** Malformed tool-call arguments go back to the model this many times to fix. */
export const MAX_MALFORMED_TOOL_CALLS = 1;

export interface AgentRunnerDeps {
  models: Pick<ModelRegistry, "resolve" | "cost" | "contextBudget" | "isSimulated">;
  artifacts: ArtifactStore;
  sessions: SessionStore;
  /** validatePlan from server/core; without it every plan is accepted (the executor validates anyway) */
  validatePlan?: PlanValidator;
  /** opens the agent's MCP servers; default: the MCP SDK client */
  mcp?: McpConnector;
  retry?: Partial<RetryPolicy>;
  maxSteps?: number;
  deltaBatching?: DeltaBatcherOptions;
  /** default: the run's own model, with an extractive fallback */
  summarize?: Summarizer;
  /** the conversation, for the runs that take part in it; without it every run sees only its own message */
  memory?: ConversationMemory;
  chunkTimeoutMs?: number;
  /**
   * the process's per-provider circuit breakers: while a provider's circuit is open,
   * runs wait for it instead of spending their retries (none: no breaker)
   */
  circuits?: ProviderCircuits;
  /** workspace: the slot tools of a run that works in a git slot (server/workspace/workspace-runner.ts) */
  extraTools?: (request: RunRequest) => ToolSet | undefined;
}

type StepOutcome = { text: string };

/** Mutable bookkeeping of one run, shared by the loop's helpers. */
interface RunContext {
  request: RunRequest;
  sink: RunSink;
  tools: RunToolState;
  /** the full session: never compacted */
  messages: ModelMessage[];
  steps: StepOutcome[];
  tokensIn: number;
  tokensOut: number;
  malformedToolCalls: number;
  model: ModelTiming;
  /** the run ends waiting for a person's answer */
  blocked: boolean;
}

/** When the model itself worked: what the run's time minus this is Baton's. */
interface ModelTiming {
  calls: number;
  firstStartedAt: number | null;
  lastEndedAt: number | null;
}

/**
 * The model as the run loop sees it, stamping when each streamed call begins and when
 * its stream ends. The stamps go to the execution log ("model-timing"), which is how
 * the benchmark tells a hop's overhead from the model's own time.
 */
function timedModel(model: LanguageModelV3, timing: ModelTiming): LanguageModelV3 {
  return wrapLanguageModel({
    model,
    middleware: {
      specificationVersion: "v3",
      wrapStream: async ({ doStream }) => {
        timing.calls += 1;
        timing.firstStartedAt ??= Date.now();
        const result = await doStream();
        const ended = new TransformStream<LanguageModelV3StreamPart, LanguageModelV3StreamPart>({
          flush: () => void (timing.lastEndedAt = Date.now()),
        });
        return { ...result, stream: result.stream.pipeThrough(ended) };
      },
    },
  });
}

function logModelTiming(sink: RunSink, timing: ModelTiming): void {
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

export function summaryFromText(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > TEXT_SUMMARY_CHARS ? `${flat.slice(0, TEXT_SUMMARY_CHARS - 1)}…` : flat;
}

export function createAgentRunner(deps: AgentRunnerDeps): AgentRunner {
  const policy: RetryPolicy = { ...DEFAULT_RETRY_POLICY, sleep: abortableSleep, ...deps.retry };
  const maxSteps = deps.maxSteps ?? DEFAULT_MAX_STEPS;
  const connect = deps.mcp ?? connectMcpServers;

  // secret form answers reach the model, and nothing else the run lets out (see secrets.ts)
  const redacted = (inner: AgentRunner): AgentRunner => ({
    async run(request, rawSink) {
      const redactor = new SecretRedactor(request.resume?.secrets ?? []);
      const sink = redactor.wrapSink(rawSink);
      const result = await inner.run(request, sink);
      sink.flush();
      return redactor.redactDeep(result);
    },
  });

  return redacted({
    async run(request, sink) {
      const ctx: RunContext = {
        request,
        sink,
        tools: createToolState(false),
        messages: [],
        steps: [],
        tokensIn: 0,
        tokensOut: 0,
        malformedToolCalls: 0,
        model: { calls: 0, firstStartedAt: null, lastEndedAt: null },
        blocked: false,
      };
      const usage = (): Usage => ({
        tokensIn: ctx.tokensIn,
        tokensOut: ctx.tokensOut,
        cost: deps.models.cost(request.agent.model, { tokensIn: ctx.tokensIn, tokensOut: ctx.tokensOut }),
      });
      const fail = (transient: boolean, reason: string): AgentRunResult => {
        sink.log({ phase: "run-failed", message: reason, data: { transient } });
        return { kind: "failed", transient, reason, usage: usage() };
      };

      let mcp: McpSession | null = null;
      try {
        const model = deps.models.resolve(request.agent.model);
        const system = buildSystemPrompt(request);
        const summarize =
          deps.summarize ??
          modelSummarizer(model, (tokensIn, tokensOut) => {
            ctx.tokensIn += tokensIn;
            ctx.tokensOut += tokensOut;
          });
        if (request.resume) {
          const stored = await deps.sessions.load(request.resume.previousRunId);
          ctx.messages = resumeSession(stored, request.resume.answer, request.resume.previousRunId);
          sink.log({ phase: "resume", message: `resuming the session of run ${request.resume.previousRunId}` });
        } else {
          const history =
            deps.memory && seesConversation(request)
              ? await buildHistoryTurns({
                  request,
                  memory: deps.memory,
                  budgetTokens: deps.models.contextBudget(request.agent.model) * HISTORY_BUDGET_SHARE,
                  summarize,
                  signal: request.signal,
                })
              : [];
          if (history.length > 0)
            sink.log({ phase: "context", message: `${history.length - 1} turn(s) of the conversation before this message` });
          ctx.messages = [...history, { role: "user", content: buildUserMessage(request) }];
        }
        // the run has seen outside content if anything it starts from holds a fence (the same
        // detector the core uses, so every fence counts, also those from a resumed session)
        if (containsFenceMarker(JSON.stringify(ctx.messages))) ctx.tools.tainted = true;

        const servers = parseMcpServers(request.agent.mcpServers);
        if (servers.length > 0) {
          mcp = await connect(servers, request.signal);
          sink.log({ phase: "mcp", message: `connected ${servers.length} MCP server(s)`, data: { tools: mcp.tools.map((t) => t.name) } });
        }
        const tools = buildToolSet({ ctx, deps, mcp });

        const compactor = new Compactor({
          budget: deps.models.contextBudget(request.agent.model),
          summarize,
          onCompact: (info) =>
            sink.log({
              phase: "compaction",
              message: `compacted ${info.summarizedMessages} older message(s) into a summary (~${info.tokensBefore} → ~${info.tokensAfter} tokens)`,
              data: info,
            }),
        });

        const streamed = timedModel(model, ctx.model);
        const simulated = deps.models.isSimulated(request.agent.model);
        const maxRetries = simulated ? 0 : policy.maxRetries;
        const circuits = simulated ? undefined : deps.circuits;
        const provider = parseModelId(request.agent.model).provider;
        const batcher = new DeltaBatcher((delta) => sink.textDelta(delta), deps.deltaBatching ?? DEFAULT_DELTA_BATCHING);
        let retries = 0;
        /** the run waits for an open circuit at most maxWaitMs in all, counted from its first wait */
        let waitDeadline: number | null = null;
        for (;;) {
          let ticket: CallTicket | null = null;
          if (circuits) {
            if (circuits.isOpen(provider)) waitDeadline ??= circuits.now() + circuits.maxWaitMs;
            ticket = await circuits.acquire(provider, {
              signal: request.signal,
              deadline: waitDeadline ?? Number.POSITIVE_INFINITY,
              onWait: (view) => {
                sink.status?.(
                  `waiting for the ${provider} provider (it is failing; ${view.nextProbeAt ? `next try in ${Math.max(0, Math.round((view.nextProbeAt - circuits.now()) / 1000))} s` : "a probe is out"})`,
                );
                sink.log({
                  phase: "provider-wait",
                  message: `waiting for the ${provider} provider: its circuit is ${view.state} after ${view.consecutiveFailures} transient failures${view.nextProbeAt ? `, next probe in ${Math.max(0, Math.round((view.nextProbeAt - circuits.now()) / 1000))} s` : ""}`,
                  data: view,
                });
              },
            });
            if (waitDeadline !== null) sink.status?.(null);
          }
          const error = await streamOnce({ ctx, deps, model: streamed, system, tools, compactor, batcher, maxSteps });
          batcher.flush();
          if (error === null) {
            ticket?.succeeded();
            break;
          }
          if (request.signal.aborted) {
            ticket?.released();
            return fail(false, "aborted: the run was cancelled");
          }
          const kind = classifyModelError(error);
          const reason = explainModelError(error, request.agent.model);
          if (kind === "transient") ticket?.failedTransiently(reason);
          else if (kind === "aborted") ticket?.released();
          else ticket?.succeeded(); // the provider answered, even if with a fatal error
          if (error instanceof CompactionImpossibleError) return fail(false, error.message);
          if (kind === "fatal" || kind === "aborted") return fail(false, reason);
          if (kind === "transient" && circuits?.isOpen(provider) && ctx.steps.length < maxSteps) {
            // the provider is down, not this run: wait for it (acquire) without spending a retry
            sink.log({
              phase: "retry",
              message: `model error (transient) while the ${provider} circuit is open: waiting for the provider instead of spending a retry: ${reason}`,
              data: { delay: 0, discardPartialText: true },
            });
            continue;
          }
          if (ctx.steps.length >= maxSteps) return fail(kind === "transient", reason);
          const delay = kind === "context-overflow" ? 0 : retryDelayMs(policy, retries + 1, error);
          if (retries >= maxRetries || delay == null) return fail(kind === "transient", reason);
          retries += 1;
          if (kind === "context-overflow") compactor.requestForcedCompaction();
          // Text already streamed from the failed model call is not part of the result:
          // live views should drop what they showed since the last completed step.
          sink.log({
            phase: "retry",
            message: `model error (${kind}), retry ${retries}/${maxRetries} in ${delay} ms: ${reason}`,
            data: { delay, discardPartialText: true },
          });
          sink.status?.(
            `attempt ${retries + 1} of ${maxRetries + 1}, retrying in ${Math.max(1, Math.round(delay / 1000))} s (${kind === "context-overflow" ? "context too long" : "provider error"})`,
          );
          await policy.sleep(delay, request.signal);
          sink.status?.(null);
        }
        return finishRun(ctx, usage);
      } catch (error) {
        if (request.signal.aborted) return fail(false, "aborted: the run was cancelled");
        // waited as long as a run may: transient, so the executor's backoff decides what next
        if (error instanceof ProviderUnavailableError) return fail(true, error.message);
        const kind = classifyModelError(error);
        return fail(kind === "transient", explainModelError(error, request.agent.model));
      } finally {
        logModelTiming(sink, ctx.model);
        await mcp?.close().catch(() => undefined);
        if (ctx.messages.length > 0) {
          const secrets = new SecretRedactor(request.resume?.secrets ?? []);
          const saved = deps.sessions
            .save(request.runId, secrets.redactDeep(ctx.messages))
            .catch((error: unknown) => sink.log({ phase: "session", message: `could not save the session: ${describeError(error)}` }));
          // Only a blocked run's session is read again (its form's answer resumes it, maybe
          // after a restart), so only then must it be stored before the result is reported.
          // Otherwise the write must not delay the next step: it goes on in the background.
          if (ctx.blocked) await saved;
        }
      }
    },
  });
}

/** The allowed tools; every other known tool is refused by name in repairToolCall. */
function buildToolSet(input: { ctx: RunContext; deps: AgentRunnerDeps; mcp: McpSession | null }): ToolSet {
  const { ctx, deps, mcp } = input;
  const { request } = ctx;
  const controls = controlTools(request);
  const builtins = createBuiltinTools({ request, artifacts: deps.artifacts, validatePlan: deps.validatePlan, state: ctx.tools });
  const controlNames = new Set(["create_plan", "decide", "finish"]);
  const tools: ToolSet = {};
  for (const name of BUILTIN_TOOL_NAMES) {
    // control tools come only from the role and purpose, never from the allow-list
    if (controlNames.has(name) && !controls.includes(name)) continue;
    if (isToolAllowed({ name, agent: request.agent, controls, isMcp: false })) tools[name] = builtins[name];
  }
  if (mcp) {
    const allowed = mcp.tools.filter((t) => isToolAllowed({ name: t.name, agent: request.agent, controls, isMcp: true }));
    Object.assign(
      tools,
      mcp.toolSet(
        allowed.map((t) => t.name),
        () => (ctx.tools.tainted = true),
      ),
    );
  }
  Object.assign(tools, deps.extraTools?.(request)); // workspace: slot tools (server/workspace)
  return tools;
}

async function streamOnce(input: {
  ctx: RunContext;
  deps: AgentRunnerDeps;
  model: ReturnType<AgentRunnerDeps["models"]["resolve"]>;
  system: string;
  tools: ToolSet;
  compactor: Compactor;
  batcher: DeltaBatcher;
  maxSteps: number;
}): Promise<unknown> {
  const { ctx, deps, model, system, tools, compactor, batcher } = input;
  const { request, sink } = ctx;
  const knownTools = new Set<string>([...BUILTIN_TOOL_NAMES]);
  let completed: ModelMessage[] = [];
  let failure: unknown = null;
  let stepHasText = false;

  const done: StopCondition<ToolSet> = () =>
    ctx.tools.finish != null ||
    ctx.tools.plan != null ||
    ctx.tools.decision != null ||
    ctx.tools.planRejections >= MAX_PLAN_REJECTIONS ||
    ctx.malformedToolCalls > MAX_MALFORMED_TOOL_CALLS;

  const offline: OfflineCallOptions = { stepKey: request.step ? `${request.step.planId}:${request.step.stepIndex}` : request.runId };
  const result = streamText({
    model,
    system,
    messages: ctx.messages,
    tools,
    maxRetries: 0,
    abortSignal: request.signal,
    timeout: { chunkMs: deps.chunkTimeoutMs ?? DEFAULT_CHUNK_TIMEOUT_MS },
    // the offline model's options are its own: real providers never see them
    ...(deps.models.isSimulated(request.agent.model) ? { providerOptions: { offline: { ...offline } } } : {}),
    stopWhen: [stepCountIs(Math.max(1, input.maxSteps - ctx.steps.length)), done],
    prepareStep: async ({ messages }) => ({ messages: await compactor.view(system, messages, request.signal) }),
    experimental_repairToolCall: async ({ toolCall, error }) => {
      if (NoSuchToolError.isInstance(error) && (knownTools.has(toolCall.toolName) || toolCall.toolName.includes("__"))) {
        sink.log({ phase: "tool-refused", message: `refused ${toolCall.toolName}: not allowed for @${request.agent.handle}` });
        throw new ToolNotAllowedError(toolCall.toolName, request.agent.handle);
      }
      if (InvalidToolInputError.isInstance(error)) {
        ctx.malformedToolCalls += 1;
        sink.log({
          phase: "tool-malformed",
          message: `malformed arguments for ${toolCall.toolName}, returned to the model`,
          data: { input: toolCall.input },
        });
      }
      return null;
    },
    onError: () => undefined, // reported through the stream's error part below
    onStepFinish: (step) => {
      completed = step.response.messages;
      ctx.steps.push({ text: step.text });
      ctx.tokensIn += step.usage.inputTokens ?? 0;
      ctx.tokensOut += step.usage.outputTokens ?? 0;
    },
  });

  try {
    for await (const part of result.fullStream) {
      switch (part.type) {
        case "start-step":
          stepHasText = false;
          break;
        case "text-delta":
          if (!stepHasText && ctx.steps.some((step) => step.text.trim() !== "")) batcher.push("\n\n");
          stepHasText = true;
          batcher.push(part.text);
          break;
        case "tool-call":
          if (!part.invalid)
            sink.log({ phase: "tool-call", message: part.toolName, data: { toolCallId: part.toolCallId, input: part.input as unknown } });
          break;
        case "tool-result":
          sink.log({ phase: "tool-result", message: part.toolName, data: { toolCallId: part.toolCallId, output: part.output as unknown } });
          break;
        case "tool-error":
          sink.log({
            phase: "tool-error",
            message: `${part.toolName}: ${describeError(part.error)}`,
            data: { toolCallId: part.toolCallId },
          });
          break;
        case "error":
          failure = part.error;
          break;
        case "abort":
          failure = failure ?? Object.assign(new Error("aborted"), { name: "AbortError" });
          break;
      }
    }
  } catch (error) {
    // a body cut mid-stream can surface as a thrown error rather than an error part
    failure = failure ?? error;
  }
  // Completed steps are kept even when a later one failed: a retry continues after them.
  ctx.messages = [...ctx.messages, ...completed];
  return failure;
}

function finishRun(ctx: RunContext, usage: () => Usage): AgentRunResult {
  const { tools, sink } = ctx;
  const text = ctx.steps
    .map((step) => step.text.trim())
    .filter((t) => t !== "")
    .join("\n\n");
  if (tools.planRejections >= MAX_PLAN_REJECTIONS && tools.plan == null) {
    const reason = `the plan was rejected ${tools.planRejections} times: ${tools.lastPlanError ?? "invalid plan"}`;
    sink.log({ phase: "run-failed", message: reason });
    return { kind: "failed", transient: false, reason, usage: usage() };
  }
  if (ctx.malformedToolCalls > MAX_MALFORMED_TOOL_CALLS && tools.finish == null) {
    const reason = `the model sent malformed tool-call arguments ${ctx.malformedToolCalls} times`;
    sink.log({ phase: "run-failed", message: reason });
    return { kind: "failed", transient: false, reason, usage: usage() };
  }
  const pending = tools.finish == null ? findPendingAskUser(ctx.messages) : null;
  if (pending) {
    ctx.blocked = true;
    sink.log({ phase: "blocked", message: pending.form.title, data: pending.form });
    return { kind: "blocked", form: pending.form, text, usage: usage() };
  }
  if (ctx.steps.length > 0 && tools.finish == null && tools.plan == null && tools.decision == null) {
    sink.log({ phase: "run-end", message: "ended without finish: summary taken from the final text" });
  }
  return {
    kind: "ok",
    // a model that answers only by calling finish (common with OpenAI models) still says something
    text: text || tools.finish?.summary?.trim() || "",
    summary:
      tools.finish?.summary ??
      summaryFromText(
        ctx.steps
          .map((step) => step.text)
          .filter((t) => t.trim() !== "")
          .at(-1) ?? "",
      ),
    files: tools.finish?.files ?? [...tools.writtenFiles],
    untrusted: tools.tainted,
    ...(tools.plan != null ? { plan: tools.plan } : {}),
    ...(tools.decision != null ? { decision: tools.decision } : {}),
    usage: usage(),
  };
}
