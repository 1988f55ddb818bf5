/** What a created run carries until it starts: shared by the unit of work and run records. */
import type { Agent } from "../generated/prisma/client.ts";
import type { RunRequest } from "../ports/executor.ts";
import type { RunKind } from "../core/types.ts";
import type { ModelReason } from "../core/run-model.ts";

/** The kinds of run (core/types.ts); core/run-outcome.ts says what a finished one means. */
export type { RunKind };

/** A created run, ready to start: the request minus its abort signal, plus bookkeeping. */
export interface RunLaunch {
  request: Omit<RunRequest, "signal" | "confirmed">;
  kind: RunKind;
  /** the agent, its `model` the one this run uses */
  agent: Agent;
  /** why the run is on `agent.model` (core/run-model.ts) */
  modelReason: ModelReason;
  planId: string | null;
  stepId: string | null;
  stepIndex: number | null;
  attempt: number;
  startedAt: Date;
  /** when the run was created (queued): its queue wait ends at startedAt */
  createdAt?: Date;
  triggerMessageId: string | null;
  /** a retry in backoff: no worker claims it before then (the creating process sets a timer) */
  notBefore?: Date;
}
