/**
 * What the application's commands need from the engine (executor/): a unit of work on
 * a conversation, and the engine's side of what happens inside one. Commands decide who
 * may do what and what a person's input means; the engine owns plans, runs and queues.
 */
import type { Executor } from "../executor/executor.ts";

export type Engine = Pick<
  Executor,
  | "inConversation"
  | "agents"
  | "queueRun"
  | "queueMessage"
  | "applyPlanEvent"
  | "cancelLoneRun"
  | "resumeRequest"
  | "now"
  | "submitPlan"
  | "rerunPlan"
  | "agentsChanged"
  | "withdrawQueuedRuns"
>;
