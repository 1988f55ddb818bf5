/**
 * Baton's event metrics: counted where the event happens, in this process (a scrape of
 * each process adds up across the cluster). The executor and the agent runtime call
 * these one-line functions; `/metrics` (metrics.ts) registers the series next to the
 * ones it reads from the database.
 */
import { Counter, Histogram, type Metric, type Registry } from "prom-client";

/** seconds: from a few milliseconds (a claim in the same statement) to an hour-long run */
const SECONDS_BUCKETS = [0.005, 0.025, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 180, 600, 1800, 3600];

/** the series' names, kept here because a prom-client metric's name is not in its public type */
const NAMES = {
  queueWait: "baton_run_queue_wait_seconds",
  runDuration: "baton_run_duration_seconds",
  retries: "baton_run_retries_total",
  providerErrors: "baton_provider_errors_total",
  leaseTakeovers: "baton_lease_takeovers_total",
} as const;

const queueWait = new Histogram({
  name: NAMES.queueWait,
  help: "Time a run waited between being created and being claimed to start, by agent",
  labelNames: ["agent"],
  buckets: SECONDS_BUCKETS,
  registers: [],
});
const runDuration = new Histogram({
  name: NAMES.runDuration,
  help: "Time an agent run took from its start to its result, by agent and outcome",
  labelNames: ["agent", "outcome"],
  buckets: SECONDS_BUCKETS,
  registers: [],
});
const retries = new Counter({
  name: NAMES.retries,
  help: "Runs started that re-do work (attempt 2 or later: a retried step or a re-dispatched lost run), by agent",
  labelNames: ["agent"],
  registers: [],
});
const providerErrors = new Counter({
  name: NAMES.providerErrors,
  help: "Failed model calls by provider and status (the HTTP status, or the error's kind when there was none)",
  labelNames: ["provider", "status"],
  registers: [],
});
const leaseTakeovers = new Counter({
  name: NAMES.leaseTakeovers,
  help: "Runs this process declared lost because their lease ran out (or their process was gone) and took over",
  registers: [],
});

const ALL = new Map<string, Metric>([
  [NAMES.queueWait, queueWait],
  [NAMES.runDuration, runDuration],
  [NAMES.retries, retries],
  [NAMES.providerErrors, providerErrors],
  [NAMES.leaseTakeovers, leaseTakeovers],
]);

/** Adds the event metrics to a registry (one process may serve several registries in tests). */
export function registerInstruments(registry: Registry): void {
  for (const [name, metric] of ALL) if (!registry.getSingleMetric(name)) registry.registerMetric(metric);
}

/** A run was claimed and starts now: its wait in the queue, and whether it re-does work. */
export function recordRunStart(input: { agent: string; createdAt?: Date; startedAt: Date; attempt: number }): void {
  if (input.createdAt) queueWait.observe({ agent: input.agent }, Math.max(0, input.startedAt.getTime() - input.createdAt.getTime()) / 1000);
  if (input.attempt > 1) retries.inc({ agent: input.agent });
}

export function recordRunDuration(agent: string, outcome: string, seconds: number): void {
  runDuration.observe({ agent, outcome }, Math.max(0, seconds));
}

/** A model call failed: its HTTP status when the provider answered, otherwise the kind of failure. */
export function recordProviderError(provider: string, error: unknown, kind: string): void {
  const status = (error as { statusCode?: unknown } | null)?.statusCode;
  providerErrors.inc({ provider, status: typeof status === "number" ? String(status) : kind });
}

export function recordLeaseTakeover(): void {
  leaseTakeovers.inc();
}
