/** What a created run carries until it starts: shared by the unit of work and run records. */
import type { Agent } from "../generated/prisma/client.ts";
import type { RunRequest } from "./ports.ts";

/**
 * mention: a person's @-mention; step: a plan step dispatched by @-mention (the agent
 * sees no difference); chat: the commander answering a message that mentions nobody;
 * commander-step: the commander's own step; decision: the commander deciding a failure.
 */
export type RunKind = "mention" | "step" | "chat" | "commander-step" | "decision";

/** A created run, ready to start: the request minus its abort signal, plus bookkeeping. */
export interface RunLaunch {
  request: Omit<RunRequest, "signal">;
  kind: RunKind;
  agent: Agent;
  planId: string | null;
  stepId: string | null;
  stepIndex: number | null;
  attempt: number;
  startedAt: Date;
  /** when the run was created (queued): its queue wait ends at startedAt */
  createdAt?: Date;
  triggerMessageId: string | null;
}
