/**
 * What the admin pages hand their client components (usage, provider health, a plan's
 * timeline). These shapes live here, in the contract with the browser; the read models
 * that build them (server/services/admin-*.ts, agents/circuit-breaker.ts) import them.
 */
import type { PlanStatus } from "../../core/types.ts";

// ─── Provider health ─────────────────────────────────────────────────────────

export type CircuitState = "closed" | "open" | "half-open";

export interface ProviderCircuitView {
  provider: string;
  /** the circuit's model id (`provider:model`): each model has its own breaker */
  model: string;
  state: CircuitState;
  /** transient failures in a row (while closed), or that opened the circuit */
  consecutiveFailures: number;
  /** epoch ms of the next probe while open; null otherwise */
  nextProbeAt: number | null;
  /** runs waiting for the model right now */
  waiting: number;
  /** how often the circuit opened since the process started */
  opened: number;
  lastFailure: string | null;
  lastFailureAt: number | null;
}

export interface ProviderHealth {
  /** when this snapshot was taken (epoch ms) */
  at: number;
  /** false when this process runs no breakers (then every call goes straight out) */
  enabled: boolean;
  providers: ProviderCircuitView[];
}

/** Whether agents' commands run sandboxed on this process (server/workspace/sandbox.ts). */
export interface SandboxView {
  /** ready: sandboxed; unavailable: commands refused; unsandboxed: BATON_UNSANDBOXED_COMMANDS=1 runs them without it */
  state: "ready" | "unavailable" | "unsandboxed";
  /** what is missing, when not ready */
  reason: string | null;
  /** what the operator runs to make it available */
  fix: string;
}

// ─── Usage ───────────────────────────────────────────────────────────────────

export interface UsageRow {
  key: string;
  tokensIn: number;
  tokensOut: number;
  /** of tokensIn: read from and written to the providers' prompt caches */
  cacheReadTokens: number;
  cacheWriteTokens: number;
  cost: number;
  runs: number;
  /** some run's usage was estimated (cut mid-stream): shown with "≈" */
  estimated: boolean;
}

export interface Usage {
  /** ISO start of the window */
  since: string;
  byModel: UsageRow[];
  byAgent: UsageRow[];
  /** keyed by ModelReason (core/run-model.ts): agent, effort:light, effort:deep, escalation, hedge */
  byReason: UsageRow[];
  /** keyed YYYY-MM-DD, oldest first */
  byDay: UsageRow[];
  totals: { tokens: number; cacheReadTokens: number; cacheWriteTokens: number; cost: number; runs: number; estimated: boolean };
}

// ─── A plan's timeline ───────────────────────────────────────────────────────

/** waiting: for a person (an open form); deciding: for the commander's decision about a failure */
export type SegmentKind = "queued" | "running" | "waiting" | "deciding" | "retry";

/** What a step's row says: never "running" for a failed step that waits for a decision. */
export type StepPhase = "queued" | "running" | "waiting" | "deciding" | "retrying" | "done" | "failed" | "skipped";

export interface TimelineSegment {
  kind: SegmentKind;
  start: number;
  end: number;
}

export interface TimelineStep {
  index: number;
  title: string;
  assignee: string;
  status: string;
  phase: StepPhase;
  waitFor: number[];
  attempts: number;
  /** ms since the plan was created */
  readyAt: number | null;
  startedAt: number | null;
  endedAt: number | null;
  renderedInput: string | null;
  outputSummary: string | null;
  outputFiles: string[];
  failureReason: string | null;
  tokens: number;
  cost: number;
  /** some run's usage was estimated (cut mid-stream): shown with "≈" */
  usageEstimated: boolean;
  critical: boolean;
  /** queued, running, waiting for a person and retry waits, in order */
  segments: TimelineSegment[];
}

export interface PlanTimeline {
  id: string;
  title: string;
  status: PlanStatus;
  request: string;
  conversation: { id: string; title: string };
  createdAt: string;
  endedAt: string | null;
  /** ms since creation the timeline covers: to the plan's end, or now while it runs */
  span: number;
  /** every run of the plan, the planning call included */
  tokens: number;
  cost: number;
  usageEstimated: boolean;
  steps: TimelineStep[];
  /** "waiting for a decision about step 2", or null when it waits for nobody */
  phaseNote: string | null;
  log: { stepIndex: number | null; at: string; phase: string; message: string }[];
}

/** A plan's final answer and its forms, who answered each and when (admin plan page). */
export interface PlanAnswers {
  /** what each done result step posted; empty when no result was delivered */
  finalAnswer: { stepIndex: number; title: string; body: string }[];
  forms: {
    id: string;
    title: string;
    stepIndex: number | null;
    status: string;
    openedAt: string;
    answeredBy: { name: string; email: string } | null;
    answeredAt: string | null;
  }[];
}
