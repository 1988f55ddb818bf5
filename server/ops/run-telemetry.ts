/**
 * Everything operators see of one run, around the agent runtime's call: its span (with
 * the model and tool calls under it), its queue wait and duration, whether it re-does
 * work, and a log line carrying its ids. The executor runs each launch through
 * `instrumentRunner(runner, prisma, launch)`.
 */
import { context } from "@opentelemetry/api";
import type { PrismaClient } from "../generated/prisma/client.ts";
import type { AgentRunner, AgentRunResult } from "../executor/ports.ts";
import type { RunLaunch } from "../executor/run-launch.ts";
import { recordRunDuration, recordRunStart } from "./instruments.ts";
import { logFor } from "./log.ts";
import { endRunSpan, startRunSpan } from "./tracing.ts";

/** `runner`, observed for this one launch. */
export function instrumentRunner(runner: AgentRunner, prisma: PrismaClient, launch: RunLaunch): AgentRunner {
  return { run: (request, sink) => instrumentRun(prisma, launch, request.signal, () => runner.run(request, sink)) };
}

export async function instrumentRun(
  prisma: PrismaClient,
  launch: RunLaunch,
  signal: AbortSignal,
  run: () => Promise<AgentRunResult>,
): Promise<AgentRunResult> {
  const agent = launch.agent.handle;
  const { runId, conversationId } = launch.request;
  const log = logFor({ conversationId, planId: launch.planId, stepId: launch.stepId, runId });
  recordRunStart({ agent, createdAt: launch.createdAt, startedAt: launch.startedAt, attempt: launch.attempt });
  log.debug({ agent, kind: launch.kind, attempt: launch.attempt }, "run started");
  const traced = await startRunSpan(prisma, {
    runId,
    conversationId,
    agent,
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
  const started = performance.now();
  let outcome: { status: string; error?: string | null } = { status: "crashed" };
  try {
    const result = traced ? await context.with(traced.context, run) : await run();
    outcome = signal.aborted ? { status: "aborted" } : { status: result.kind, error: result.kind === "failed" ? result.reason : null };
    return result;
  } catch (error) {
    outcome = { status: "crashed", error: error instanceof Error ? error.message : String(error) };
    throw error;
  } finally {
    const seconds = (performance.now() - started) / 1000;
    recordRunDuration(agent, outcome.status, seconds);
    if (traced) endRunSpan(traced.span, outcome);
    const line = { agent, outcome: outcome.status, seconds: Math.round(seconds * 1000) / 1000, attempt: launch.attempt };
    // a failed run is routine (its step may retry); a runtime that threw is not
    if (outcome.status === "crashed") log.error({ ...line, error: outcome.error }, "run ended: the agent runtime crashed");
    else log.info(outcome.error ? { ...line, error: outcome.error } : line, "run ended");
  }
}
