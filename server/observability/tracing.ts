/**
 * Traces along the task graph (OpenTelemetry). Off unless OTEL_EXPORTER_OTLP_ENDPOINT is
 * set (or a test passes an exporter): then the API's no-op tracer is all that runs.
 *
 * A plan and its steps outlive any one process, so their spans are named by their ids:
 * the trace id comes from the plan id, the plan span's and each step's span id from
 * theirs. Any process can then put a run's span under its step (the run span is made
 * where the run runs), and the process that ends the plan writes the plan and step
 * spans from the rows (start and end times, `wait_for` edges as links). The AI SDK's
 * model-call and tool-call spans nest under the run span through the active context.
 * A run's own span context is stored on its row (Run.traceContext, a W3C traceparent),
 * so the run that takes over a lost one, on whichever process, links back to it.
 */
import { createHash } from "node:crypto";
import {
  context,
  ROOT_CONTEXT,
  SpanStatusCode,
  trace,
  TraceFlags,
  type Context,
  type Link,
  type Span,
  type SpanContext,
  type Tracer,
} from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { resourceFromAttributes } from "@opentelemetry/resources";
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  RandomIdGenerator,
  SimpleSpanProcessor,
  type IdGenerator,
  type SpanExporter,
} from "@opentelemetry/sdk-trace-base";
import type { TelemetrySettings } from "ai";
import type { PrismaClient } from "../generated/prisma/client.ts";
import { isTerminalPlan } from "../core/status.ts";
import type { ConversationEventDTO } from "../protocol/events.ts";
import { logFor } from "./log.ts";

const TRACER_NAME = "baton";

// ─── Ids a plan's spans are known by on every process ────────────────────────

const hex = (seed: string, length: number) => createHash("sha256").update(seed).digest("hex").slice(0, length);
export const planTraceId = (planId: string) => hex(`baton-trace:${planId}`, 32);
export const planSpanId = (planId: string) => hex(`baton-plan:${planId}`, 16);
export const stepSpanId = (stepId: string) => hex(`baton-step:${stepId}`, 16);

function remote(traceId: string, spanId: string): SpanContext {
  return { traceId, spanId, traceFlags: TraceFlags.SAMPLED, isRemote: true };
}

/** A span context as a W3C traceparent header value. */
export function toTraceparent(span: SpanContext): string {
  return `00-${span.traceId}-${span.spanId}-0${span.traceFlags & TraceFlags.SAMPLED}`;
}

/** A W3C traceparent back into a span context; null for anything else. */
export function fromTraceparent(value: string | null | undefined): SpanContext | null {
  const match = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/.exec(value ?? "");
  if (!match || /^0+$/.test(match[1]) || /^0+$/.test(match[2])) return null;
  return { traceId: match[1], spanId: match[2], traceFlags: parseInt(match[3], 16), isRemote: true };
}

// The SDK asks its id generator for a span's ids; the spans named by a plan's ids are
// started (synchronously) with those ids forced.
const randomIds = new RandomIdGenerator();
let forced: { traceId?: string; spanId?: string } | null = null;
const idGenerator: IdGenerator = {
  generateTraceId: () => forced?.traceId ?? randomIds.generateTraceId(),
  generateSpanId: () => forced?.spanId ?? randomIds.generateSpanId(),
};
function startNamedSpan(ids: { traceId?: string; spanId?: string }, start: () => Span): Span {
  forced = ids;
  try {
    return start();
  } finally {
    forced = null;
  }
}

// ─── Switching tracing on ────────────────────────────────────────────────────

let provider: BasicTracerProvider | null = null;
const pending = new Set<Promise<unknown>>();

export function tracer(): Tracer {
  return trace.getTracer(TRACER_NAME);
}

/**
 * Starts tracing when OTEL_EXPORTER_OTLP_ENDPOINT is set (the OTLP/HTTP exporter reads
 * the standard OTEL_EXPORTER_OTLP_* variables) or `exporter` is given (tests: spans are
 * exported as they end). Returns whether tracing is on.
 */
export async function startTracing(options: { exporter?: SpanExporter; env?: Record<string, string | undefined> } = {}): Promise<boolean> {
  if (provider) return true;
  const env = options.env ?? process.env;
  let processor;
  if (options.exporter) processor = new SimpleSpanProcessor(options.exporter);
  else if (env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) {
    // loaded only when used: with tracing off nothing of the exporter is imported
    const { OTLPTraceExporter } = await import("@opentelemetry/exporter-trace-otlp-http");
    processor = new BatchSpanProcessor(new OTLPTraceExporter());
  } else return false;
  provider = new BasicTracerProvider({
    idGenerator,
    spanProcessors: [processor],
    resource: resourceFromAttributes({ "service.name": env.OTEL_SERVICE_NAME || "baton" }),
  });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  trace.setGlobalTracerProvider(provider);
  return true;
}

/** Waits for the plan spans being written, and hands every ended span to the exporter. */
export async function flushTracing(): Promise<void> {
  while (pending.size > 0) await Promise.allSettled([...pending]);
  await provider?.forceFlush();
}

/** Flushes and switches tracing off (shutdown, and between tests). */
export async function stopTracing(): Promise<void> {
  if (!provider) return;
  await flushTracing();
  await provider.shutdown();
  trace.disable();
  context.disable();
  provider = null;
  emittedPlans.clear();
}

function track(promise: Promise<unknown>): void {
  const tracked = promise.catch((error: unknown) => logFor({ component: "tracing" }).warn({ err: error }, "writing plan spans failed"));
  pending.add(tracked);
  void tracked.finally(() => pending.delete(tracked));
}

// ─── Runs ────────────────────────────────────────────────────────────────────

export interface TracedRun {
  runId: string;
  conversationId: string;
  agent: string;
  kind: string;
  attempt: number;
  planId: string | null;
  stepId: string | null;
  stepIndex: number | null;
  triggerMessageId: string | null;
}

/**
 * The run's span: under its step's span (or, outside a plan, the root of a trace named
 * by the message that asked for it), linked to the lost run it takes over. Returns the
 * context to run the agent in; `storeRunSpan` stores it on the run's row once the run is
 * known to be this process's (a span never ended is never exported).
 */
export async function startRunSpan(prisma: PrismaClient, run: TracedRun): Promise<{ span: Span; context: Context } | null> {
  if (!provider) return null;
  const links: Link[] = [];
  if (run.attempt > 1 && (run.stepId || run.triggerMessageId)) {
    const previous = await prisma.run.findFirst({
      where: {
        id: { not: run.runId },
        status: "lost",
        traceContext: { not: null },
        ...(run.stepId ? { stepId: run.stepId } : { triggerMessageId: run.triggerMessageId, planId: null }),
      },
      orderBy: { createdAt: "desc" },
      select: { id: true, traceContext: true },
    });
    const lost = fromTraceparent(previous?.traceContext);
    if (previous && lost) links.push({ context: lost, attributes: { "baton.link": "takes-over", "baton.run.id": previous.id } });
  }
  const attributes = {
    "baton.run.id": run.runId,
    "baton.conversation.id": run.conversationId,
    "baton.agent": run.agent,
    "baton.run.kind": run.kind,
    "baton.run.attempt": run.attempt,
    ...(run.planId ? { "baton.plan.id": run.planId } : {}),
    ...(run.stepIndex !== null ? { "baton.step.index": run.stepIndex } : {}),
  };
  let parent: Context;
  let traceId: string | undefined;
  if (run.planId) {
    const spanId = run.stepId ? stepSpanId(run.stepId) : planSpanId(run.planId);
    parent = trace.setSpanContext(ROOT_CONTEXT, remote(planTraceId(run.planId), spanId));
  } else {
    parent = ROOT_CONTEXT;
    traceId = hex(`baton-trace:${run.triggerMessageId ?? run.runId}`, 32);
  }
  const span = startNamedSpan({ traceId }, () => tracer().startSpan("run", { attributes, links }, parent));
  return { span, context: trace.setSpan(parent, span) };
}

/** Stores the run's span context on its row, for the run that may take over from it. */
export async function storeRunSpan(prisma: PrismaClient, runId: string, span: Span): Promise<void> {
  await prisma.run.updateMany({ where: { id: runId }, data: { traceContext: toTraceparent(span.spanContext()) } });
}

/**
 * The AI SDK's telemetry option for a run's model calls: their spans (and their tool
 * calls') nest under the run's span. Prompts and outputs stay out of the trace.
 */
export function modelCallTelemetry(request: { runId: string; agent: { handle: string } }): TelemetrySettings {
  if (!provider) return { isEnabled: false };
  return {
    isEnabled: true,
    tracer: tracer(),
    functionId: `@${request.agent.handle}`,
    recordInputs: false,
    recordOutputs: false,
    metadata: { runId: request.runId },
  };
}

export function endRunSpan(span: Span, outcome: { status: string; error?: string | null }): void {
  span.setAttribute("baton.run.outcome", outcome.status);
  if (outcome.status === "failed" || outcome.status === "crashed")
    span.setStatus({ code: SpanStatusCode.ERROR, message: outcome.error ?? outcome.status });
  span.end();
}

// ─── Plans and steps, written when the plan ends ─────────────────────────────

/** plans whose spans this process wrote (a plan re-opened and ended again is written again) */
const emittedPlans = new Set<string>();

/** After a commit: the plans it ended get their plan and step spans. */
export function traceEndedPlans(prisma: PrismaClient, events: readonly ConversationEventDTO[]): void {
  if (!provider) return;
  for (const event of events) {
    if (event.type !== "plan-updated" || !isTerminalPlan(event.payload.status)) continue;
    const key = `${event.payload.planId}@${event.payload.endedAt}`;
    if (emittedPlans.has(key)) continue;
    emittedPlans.add(key);
    if (emittedPlans.size > 10_000) emittedPlans.delete(emittedPlans.values().next().value!);
    track(writePlanSpans(prisma, event.payload.planId));
  }
}

async function writePlanSpans(prisma: PrismaClient, planId: string): Promise<void> {
  const plan = await prisma.plan.findUnique({
    where: { id: planId },
    select: {
      id: true,
      title: true,
      status: true,
      conversationId: true,
      createdAt: true,
      endedAt: true,
      steps: {
        select: {
          id: true,
          index: true,
          title: true,
          assignee: true,
          status: true,
          waitFor: true,
          attempts: true,
          startedAt: true,
          endedAt: true,
        },
        orderBy: { index: "asc" },
      },
    },
  });
  if (!plan) return;
  const traceId = planTraceId(plan.id);
  const planEnd = plan.endedAt ?? new Date();
  const planSpan = startNamedSpan({ traceId, spanId: planSpanId(plan.id) }, () =>
    tracer().startSpan(
      "plan",
      {
        startTime: plan.createdAt,
        attributes: {
          "baton.plan.id": plan.id,
          "baton.plan.title": plan.title,
          "baton.plan.status": plan.status,
          "baton.conversation.id": plan.conversationId,
          "baton.plan.steps": plan.steps.length,
        },
      },
      ROOT_CONTEXT,
    ),
  );
  const planContext = trace.setSpan(ROOT_CONTEXT, planSpan);
  const byIndex = new Map(plan.steps.map((step) => [step.index, step]));
  for (const step of plan.steps) {
    const links: Link[] = step.waitFor.flatMap((index) => {
      const dependency = byIndex.get(index);
      return dependency
        ? [{ context: remote(traceId, stepSpanId(dependency.id)), attributes: { "baton.link": "wait_for", "baton.step.index": index } }]
        : [];
    });
    const end = step.endedAt ?? planEnd;
    const span = startNamedSpan({ spanId: stepSpanId(step.id) }, () =>
      tracer().startSpan(
        "step",
        {
          startTime: step.startedAt ?? end,
          links,
          attributes: {
            "baton.plan.id": plan.id,
            "baton.step.index": step.index,
            "baton.step.title": step.title,
            "baton.step.assignee": step.assignee,
            "baton.step.status": step.status,
            "baton.step.attempts": step.attempts,
          },
        },
        planContext,
      ),
    );
    if (step.status === "failed") span.setStatus({ code: SpanStatusCode.ERROR, message: "step failed" });
    span.end(end);
  }
  if (plan.status === "failed") planSpan.setStatus({ code: SpanStatusCode.ERROR, message: "plan failed" });
  planSpan.end(planEnd);
}
