/**
 * Everything operators see of one run, around the agent runtime's call: its span (with
 * the model and tool calls under it), its queue wait and duration, whether it re-does
 * work, and a log line carrying its ids, written once the run's result is stored. The executor runs each launch through
 * `instrumentRunner(runner, prisma, launch)`. A run started early (ARCHITECTURE.md,
 * "Early start") is observed from its confirmation on: until then it is not a run yet,
 * and one that never becomes this process's leaves no metric, log line or stored span.
 */
import { context } from "@opentelemetry/api";
import type { PrismaClient } from "../generated/prisma/client.ts";
import type { AgentRunner, AgentRunResult } from "../ports/executor.ts";
import type { RunLaunch } from "./run-launch.ts";
import { recordRunDuration, recordRunStart } from "../observability/instruments.ts";
import { logFor } from "../observability/log.ts";
import { endRunSpan, startRunSpan, storeRunSpan } from "../observability/tracing.ts";

/**
 * `runner`, observed for this one launch. `claimed`, for a run started early: resolves
 * with the launch as claimed (its start is the claim's), or null when the run turned out
 * not to be this process's.
 */
export function instrumentRunner(
  runner: AgentRunner,
  prisma: PrismaClient,
  launch: RunLaunch,
  claimed: Promise<RunLaunch | null> = Promise.resolve(launch),
): InstrumentedRunner {
  let endedLine: ((recorded: RecordedEnd) => void) | null = null;
  return {
    run: (request, sink) =>
      instrumentRun(
        prisma,
        launch,
        claimed,
        request.signal,
        () => runner.run(request, sink),
        (write) => (endedLine = write),
      ),
    recorded: (recorded) => {
      endedLine?.(recorded);
      endedLine = null;
    },
  };
}

/**
 * How the run's end was stored: as reported, refused by the database and stored failed
 * instead, or not at all because the run was settled elsewhere meanwhile (taken over
 * after its lease ran out while this process was frozen, stopped, or a lost hedge).
 */
export type RecordedEnd = { stored: "as-reported" } | { stored: "failed-instead"; error: string } | { stored: "settled-elsewhere" };

export interface InstrumentedRunner extends AgentRunner {
  /**
   * The run's result is stored (or, refused, its failure is): writes the "run ended"
   * line, so a line saying ok never stands for a result that was lost.
   */
  recorded(recorded: RecordedEnd): void;
}

export async function instrumentRun(
  prisma: PrismaClient,
  launch: RunLaunch,
  claimed: Promise<RunLaunch | null>,
  signal: AbortSignal,
  run: () => Promise<AgentRunResult>,
  /** given the "run ended" line to write once the result is stored; without it the line is written at once */
  deferEndedLine?: (write: (recorded: RecordedEnd) => void) => void,
): Promise<AgentRunResult> {
  const { runId, conversationId } = launch.request;
  const log = logFor({ conversationId, planId: launch.planId, stepId: launch.stepId, runId });
  // the span first, so that the model and tool calls nest under it; it is stored, ended
  // and so exported only once the run is this process's
  const traced = await startRunSpan(prisma, {
    runId,
    conversationId,
    agent: launch.agent.handle,
    kind: launch.kind,
    attempt: launch.attempt,
    planId: launch.planId,
    stepId: launch.stepId,
    stepIndex: launch.stepIndex,
    triggerMessageId: launch.triggerMessageId,
  }).catch((error: unknown) => {
    log.warn({ err: error }, "could not start the run's span");
    return null;
  });
  const running = traced ? context.with(traced.context, run) : run();
  running.catch(() => undefined); // awaited below, perhaps only after the claim: not unhandled meanwhile
  const started = await claimed;
  // not this process's run: it never started, so nothing of it is observed
  if (started === null) return running;
  // the run's time starts here, not after the bookkeeping below: storing the span is a
  // database write, and the run is working meanwhile
  const startedAt = performance.now();
  const agent = started.agent.handle;
  recordRunStart({ agent, createdAt: started.createdAt, startedAt: started.startedAt, attempt: started.attempt });
  log.debug({ agent, kind: started.kind, attempt: started.attempt }, "run started");
  if (traced)
    await storeRunSpan(prisma, runId, traced.span).catch((error: unknown) => log.warn({ err: error }, "could not store the run's span"));
  let outcome: { status: string; error?: string | null } = { status: "crashed" };
  try {
    const result = await running;
    outcome = signal.aborted ? { status: "aborted" } : { status: result.kind, error: result.kind === "failed" ? result.reason : null };
    return result;
  } catch (error) {
    outcome = { status: "crashed", error: error instanceof Error ? error.message : String(error) };
    throw error;
  } finally {
    const seconds = (performance.now() - startedAt) / 1000;
    recordRunDuration(agent, outcome.status, seconds);
    if (traced) endRunSpan(traced.span, outcome);
    const line = { agent, outcome: outcome.status, seconds: Math.round(seconds * 1000) / 1000, attempt: started.attempt };
    // a failed run is routine (its step may retry); a runtime that threw is not
    const ended = outcome;
    const write = (recorded: RecordedEnd) => {
      if (recorded.stored === "settled-elsewhere")
        log.info(
          { ...line, outcome: "discarded", reported: ended.status },
          "run ended: its result was discarded (the run had been taken over, stopped or cancelled meanwhile)",
        );
      else if (recorded.stored === "failed-instead")
        log.error({ ...line, outcome: "failed", reported: ended.status, error: recorded.error }, "run ended: its result was refused");
      else if (ended.status === "crashed") log.error({ ...line, error: ended.error }, "run ended: the agent runtime crashed");
      else log.info(ended.error ? { ...line, error: ended.error } : line, "run ended");
    };
    if (deferEndedLine) deferEndedLine(write);
    else write({ stored: "as-reported" });
  }
}
