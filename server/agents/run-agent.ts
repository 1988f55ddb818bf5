/**
 * The agent run loop: one AgentRunner.run = one full agent run (DESIGN rule 5)
 * — streaming, tools, compaction, in-run retries of transient model errors,
 * and a session that can block on a form and resume.
 *
 * The runner stores nothing the executor owns: it returns the result and
 * streams through the sink. It does store the model session (SessionStore),
 * which only it can read.
 */
import { InvalidToolInputError, NoSuchToolError, stepCountIs, streamText, type ModelMessage, type StopCondition, type ToolSet } from "ai";
import { startConfirmed, type AgentRunner, type AgentRunResult, type RunRequest, type Usage } from "../ports/executor.ts";
import { Compactor, CompactionImpossibleError, modelSummarizer, type Summarizer } from "./compaction.ts";
import { DEFAULT_DELTA_BATCHING, DeltaBatcher } from "./delta-batcher.ts";
import { connectMcpServers, parseMcpServers, type McpSession } from "./mcp.ts";
import { parseModelId } from "./model-registry.ts";
import { ProviderUnavailableError, type CallTicket } from "./circuit-breaker.ts";
import { abortableSleep, type OfflineCallOptions } from "./offline-model.ts";
import { containsFenceMarker } from "../core/fence.ts";
import { buildHistoryTurns, HISTORY_BUDGET_SHARE, seesConversation } from "./conversation-context.ts";
import { buildSystemPrompt, buildUserMessageParts } from "./prompt.ts";
import { classifyModelError, describeError, explainModelError, IN_RUN_RETRY_REASONS, providerFailure, type RetryTiming } from "./retry.ts";
import { decideInRun, inRunRetriesFor } from "../core/retry-policy.ts";
import { logModelTiming, mustBeStarted, timedModel, type AgentRunnerDeps, type RunContext } from "./run-context.ts";
import { cachedSystem, cachedUserMessage, cacheRouting, estimateCutUsage, markCacheBreakpoint, restartLiveText } from "./run-usage.ts";
import { buildToolSet, finishRun, MAX_MALFORMED_TOOL_CALLS } from "./run-finish.ts";
import { SecretRedactor } from "./secrets.ts";
import { resumeSession } from "./session.ts";
import { BUILTIN_TOOL_NAMES, createToolState, MAX_PLAN_REJECTIONS, ToolNotAllowedError } from "./tools.ts";
import { recordProviderError } from "../observability/instruments.ts";
import { unhandled } from "../protocol/exhaustive.ts";
import { modelCallTelemetry } from "../observability/tracing.ts";

export const DEFAULT_MAX_STEPS = 24;
/**
 * A stream that sends nothing for this long is treated as cut (transient).
 * The AI SDK measures it between stream parts, tool executions included, so it
 * must exceed the slowest tool call.
 */
export const DEFAULT_CHUNK_TIMEOUT_MS = 180_000;
export type { AgentRunnerDeps } from "./run-context.ts";

export function createAgentRunner(deps: AgentRunnerDeps): AgentRunner {
  const timing: RetryTiming = { sleep: abortableSleep, random: Math.random, ...deps.retry };
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
        cacheReadTokens: 0,
        cacheWriteTokens: 0,
        usageEstimated: false,
        malformedToolCalls: 0,
        refused: false,
        model: { calls: 0, firstStartedAt: null, lastEndedAt: null },
        blocked: false,
      };
      const usage = (): Usage => ({
        tokensIn: ctx.tokensIn,
        tokensOut: ctx.tokensOut,
        cost: deps.models.cost(request.agent.model, ctx),
        ...(ctx.cacheReadTokens > 0 ? { cacheReadTokens: ctx.cacheReadTokens } : {}),
        ...(ctx.cacheWriteTokens > 0 ? { cacheWriteTokens: ctx.cacheWriteTokens } : {}),
        ...(ctx.usageEstimated ? { estimated: true } : {}),
      });
      const fail = (transient: boolean, reason: string, retryAfterMs: number | null = null): AgentRunResult => {
        sink.log({ phase: "run-failed", message: reason, data: { transient, ...(retryAfterMs === null ? {} : { retryAfterMs }) } });
        return { kind: "failed", transient, reason, ...(retryAfterMs === null ? {} : { retryAfterMs }), usage: usage() };
      };

      // a run started early prepares until it may act: what reads the database or leaves the process waits
      const notStarted = () => fail(false, "aborted: the run was not started here");
      let mcp: McpSession | null = null;
      try {
        const model = deps.models.resolve(request.agent.model);
        const system = buildSystemPrompt(request);
        const summarize = confirmedFirst(
          request,
          deps.summarize ??
            modelSummarizer(model, (tokensIn, tokensOut) => {
              ctx.tokensIn += tokensIn;
              ctx.tokensOut += tokensOut;
            }),
        );
        if ((request.resume || (deps.memory && seesConversation(request))) && !(await startConfirmed(request))) return notStarted();
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
          const provider = parseModelId(request.agent.model).provider;
          ctx.messages = [...markCacheBreakpoint(provider, history), cachedUserMessage(provider, buildUserMessageParts(request))];
        }
        // the run has seen outside content if anything it starts from holds a fence (the same
        // detector the core uses, so every fence counts, also those from a resumed session)
        if (containsFenceMarker(JSON.stringify(ctx.messages))) ctx.tools.tainted = true;

        const servers = parseMcpServers(request.agent.mcpServers);
        if (servers.length > 0) {
          if (!(await startConfirmed(request))) return notStarted();
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

        const streamed = timedModel(model, ctx.model, request);
        const simulated = deps.models.isSimulated(request.agent.model);
        // one in-place retry per attempt chain (core/retry-policy.ts); the offline model cannot fail that way
        let inRunRetriesLeft = simulated ? 0 : inRunRetriesFor(request.attempt ?? 1);
        const circuits = simulated ? undefined : deps.circuits;
        const provider = parseModelId(request.agent.model).provider;
        const target = { provider, model: request.agent.model };
        const batcher = new DeltaBatcher((delta) => sink.textDelta(delta), deps.deltaBatching ?? DEFAULT_DELTA_BATCHING);
        /** the run waits for an open circuit at most maxWaitMs in all, counted from its first wait */
        let waitingSince: number | null = null;
        for (;;) {
          let ticket: CallTicket | null = null;
          if (circuits) {
            if (circuits.isOpen(target)) waitingSince ??= circuits.now();
            ticket = await circuits.acquire(target, {
              signal: request.signal,
              deadline: waitingSince === null ? Number.POSITIVE_INFINITY : waitingSince + circuits.maxWaitMs,
              waitingSince: waitingSince ?? undefined,
              onWait: (view) => {
                const next = view.nextProbeAt
                  ? `next try in ${Math.max(0, Math.round((view.nextProbeAt - circuits.now()) / 1000))} s`
                  : null;
                sink.status?.(`waiting for ${target.model} (it is failing; ${next ?? "a probe is out"})`);
                sink.log({
                  phase: "provider-wait",
                  message: `waiting for ${target.model}: its circuit is ${view.state} after ${view.consecutiveFailures} transient failures${next ? `, ${next}` : ""}`,
                  data: view,
                });
              },
            });
            if (waitingSince !== null) sink.status?.(null);
          }
          const error = await streamOnce({ ctx, deps, model: streamed, system, tools, compactor, batcher, maxSteps });
          batcher.flush();
          if (error !== null && !request.signal.aborted) restartLiveText(ctx);
          if (error === null) {
            ticket?.succeeded();
            break;
          }
          if (request.signal.aborted) {
            ticket?.released();
            return fail(false, "aborted: the run was cancelled");
          }
          const kind = classifyModelError(error);
          recordProviderError(provider, error, kind);
          const reason = explainModelError(error, request.agent.model);
          if (kind === "transient") ticket?.failedTransiently(reason);
          else if (kind === "aborted") ticket?.released();
          else ticket?.succeeded(); // the provider answered, even if with a fatal error
          if (error instanceof CompactionImpossibleError) return fail(false, error.message);
          if (kind === "fatal" || kind === "aborted") return fail(false, reason);
          // a run out of steps cannot go on in place: only the durable retry may start it afresh
          const left = ctx.steps.length >= maxSteps ? 0 : inRunRetriesLeft;
          const verdict = decideInRun({ failure: providerFailure(error, kind), inRunRetriesLeft: left, random: timing.random });
          if (verdict.kind === "fail") return fail(false, reason);
          // transient: the durable retry (a step's retryAt, a reply's next run) takes over
          if (verdict.kind === "escalate") return fail(true, reason, verdict.retryAfterMs);
          inRunRetriesLeft -= 1;
          const delay = verdict.kind === "compact" ? 0 : verdict.delayMs;
          if (verdict.kind === "compact") compactor.requestForcedCompaction();
          // Text already streamed from the failed model call is not part of the result:
          // live views should drop what they showed since the last completed step.
          sink.log({
            phase: "retry",
            message: `model error (${kind}), ${IN_RUN_RETRY_REASONS[verdict.kind]} in ${delay} ms: ${reason}`,
            data: { delay, discardPartialText: true },
          });
          sink.status?.(`retrying in ${Math.max(1, Math.round(delay / 1000))} s (${IN_RUN_RETRY_REASONS[verdict.kind]})`);
          await timing.sleep(delay, request.signal);
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
  /** what the current model call streamed before it completed: a cut call's usage is estimated from it */
  let partialChars = 0;
  let streaming = false;

  const done: StopCondition<ToolSet> = () =>
    ctx.tools.finish != null ||
    ctx.tools.plan != null ||
    ctx.tools.decision != null ||
    ctx.tools.planRejections >= MAX_PLAN_REJECTIONS ||
    ctx.malformedToolCalls > MAX_MALFORMED_TOOL_CALLS ||
    ctx.refused;

  const offline: OfflineCallOptions = { stepKey: request.step ? `${request.step.planId}:${request.step.stepIndex}` : request.runId };
  const result = streamText({
    model,
    system: cachedSystem(parseModelId(request.agent.model).provider, system),
    messages: ctx.messages,
    tools,
    maxRetries: 0,
    abortSignal: request.signal,
    experimental_telemetry: modelCallTelemetry(request),
    timeout: { chunkMs: deps.chunkTimeoutMs ?? DEFAULT_CHUNK_TIMEOUT_MS },
    // the offline model's options are its own: real providers never see them
    providerOptions: deps.models.isSimulated(request.agent.model)
      ? { offline: { ...offline } }
      : cacheRouting(parseModelId(request.agent.model).provider, { agentId: request.agent.id, conversationId: request.conversationId }),
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
      // A step the provider ended with an in-stream error is the failed attempt: its
      // partial text is not part of the answer (the retry starts that step again), only
      // its usage is real.
      if (step.finishReason === "content-filter") {
        ctx.refused = true;
        sink.log({ phase: "refused", message: "the provider's content filter stopped the model's output" });
      }
      if (step.finishReason !== "error") {
        completed = step.response.messages;
        ctx.steps.push({ text: step.text });
      }
      ctx.tokensIn += step.usage.inputTokens ?? 0;
      ctx.tokensOut += step.usage.outputTokens ?? 0;
      ctx.cacheReadTokens += step.usage.inputTokenDetails?.cacheReadTokens ?? 0;
      ctx.cacheWriteTokens += step.usage.inputTokenDetails?.cacheWriteTokens ?? 0;
      partialChars = 0;
      streaming = false;
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
          streaming = true;
          partialChars += part.text.length;
          batcher.push(part.text);
          break;
        case "tool-input-delta":
          streaming = true;
          partialChars += part.delta.length;
          break;
        case "reasoning-delta":
          streaming = true;
          partialChars += part.text.length;
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
        // nothing a run records: listed so that a part type a newer SDK adds fails typecheck here
        case "start":
        case "finish":
        case "finish-step":
        case "text-start":
        case "text-end":
        case "reasoning-start":
        case "reasoning-end":
        case "tool-input-start":
        case "tool-input-end":
        case "tool-output-denied":
        case "tool-approval-request":
        case "source":
        case "file":
        case "raw":
          break;
        default:
          // at run time a part type this build does not know is ignored, not a failed run
          unhandled(part, undefined);
      }
    }
  } catch (error) {
    // a body cut mid-stream can surface as a thrown error rather than an error part
    failure = failure ?? error;
  }
  // Completed steps are kept even when a later one failed: a retry continues after them.
  ctx.messages = [...ctx.messages, ...completed];
  // a call cut mid-stream reports no usage, yet the provider read the prompt and wrote
  // what streamed: estimated (~4 characters a token) and marked as such
  if (failure !== null && streaming) estimateCutUsage(ctx, system, partialChars);
  return failure;
}

/** The summarizer calls a model: a run started early waits for its confirmation first. */
function confirmedFirst(request: Pick<RunRequest, "confirmed">, summarize: Summarizer): Summarizer {
  if (!request.confirmed) return summarize;
  return async (...args) => {
    await mustBeStarted(request);
    return summarize(...args);
  };
}
