/**
 * The vocabulary of Baton's orchestration core. Everything here is plain data:
 * the executor loads it from the database, hands it to `reconcile`, and carries
 * out the commands that come back.
 */

export const STEP_STATUSES = ["pending", "in_progress", "done", "failed", "skipped", "blocked"] as const;
export type StepStatus = (typeof STEP_STATUSES)[number];

/** completed: every step done; partial: something failed or was skipped, a result was still delivered; failed: aborted or no result */
export const PLAN_STATUSES = ["running", "paused", "completed", "partial", "failed", "cancelled"] as const;
export type PlanStatus = (typeof PLAN_STATUSES)[number];

/** The states of an agent run (the Run row): queued until claimed, then running until it ends. */
export const RUN_STATUSES = ["queued", "running", "succeeded", "failed", "blocked", "cancelled", "lost"] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];
/**
 * Why a run was started. mention: a person's @-mention; step: a plan step dispatched by
 * @-mention (the agent sees no difference); chat: the commander answering a message that
 * mentions nobody; commander-step: the commander's own step; decision: the commander
 * deciding a failure. What a finished run of each kind means: run-outcome.ts.
 */
export const RUN_KINDS = ["mention", "step", "chat", "commander-step", "decision"] as const;
export type RunKind = (typeof RUN_KINDS)[number];

/** The run row's kind column holds text: this checks a row's. */
export function isRunKind(value: string): value is RunKind {
  return (RUN_KINDS as readonly string[]).includes(value);
}

/** A row's kind as the union, or an error naming the run: a kind no code knows is never guessed at. */
export function runKindOf(run: { id: string; kind: string }): RunKind {
  if (!isRunKind(run.kind)) throw new Error(`run ${run.id}: unknown kind "${run.kind}"`);
  return run.kind;
}

/** How a run's own report ends it (cancelled and lost are decided by others). */
export type FinishedRunStatus = Extract<RunStatus, "succeeded" | "failed" | "blocked">;

/** An agent's role: the one commander of a conversation, or a sub-agent it assigns steps to. */
export const AGENT_ROLES = ["commander", "sub_agent"] as const;
export type AgentRole = (typeof AGENT_ROLES)[number];

export const ON_FAILURE_POLICIES = ["abort_plan", "continue", "ask_commander"] as const;
export type OnFailure = (typeof ON_FAILURE_POLICIES)[number];

/** Reserved assignees; anything else is an agent handle. */
export const USER_ASSIGNEE = "user";
export const COMMANDER_ASSIGNEE = "commander";

/**
 * Token and cost limits (plan-wide or per step); null = no limit. The scheduler
 * refuses to start a step once a limit is reached and asks the commander instead.
 */
export interface Budget {
  maxTokens: number | null;
  maxCost: number | null;
}

/** Where a for_each step reads its list: one entry per file, or one per line of the summary. */
export const FOR_EACH_FIELDS = ["output_files", "output_lines"] as const;
export type ForEachField = (typeof FOR_EACH_FIELDS)[number];

/**
 * "Map one template over a list produced upstream": when the step becomes ready,
 * reconcile reads the list from step `from` (always one of its wait_for steps) and
 * appends one child step per item instead of dispatching the step itself.
 */
export interface ForEach {
  from: number;
  field: ForEachField;
  /** children of this step in progress at once (on top of max_parallel and the pools); null = no extra bound */
  maxParallel: number | null;
}

/** What a for_each step expanded into: child indexes, and the item each one got, in item order. */
export interface StepExpansion {
  children: number[];
  items: string[];
}

/**
 * How hard a step is, as the commander judges it: light work may run on a smaller model,
 * deep work on a stronger one (the admin maps levels to models, core/run-model.ts).
 */
export const EFFORT_LEVELS = ["light", "standard", "deep"] as const;
export type Effort = (typeof EFFORT_LEVELS)[number];

/**
 * Failures a stronger model could fix: the model kept sending tool calls whose
 * arguments did not parse, had its plan rejected too often, or its output was refused
 * by the provider's content filter. The next attempt may escalate (core/run-model.ts).
 */
export const ESCALATION_CAUSES = ["malformed-tool-calls", "plan-rejected", "refused"] as const;
export type EscalationCause = (typeof ESCALATION_CAUSES)[number];

/** What a text column holds, checked: a value no code knows reads as null, never guessed at. */
export function escalationCauseOf(value: string | null): EscalationCause | null {
  return (ESCALATION_CAUSES as readonly (string | null)[]).includes(value) ? (value as EscalationCause) : null;
}
export function effortOf(value: string | null): Effort | null {
  return (EFFORT_LEVELS as readonly (string | null)[]).includes(value) ? (value as Effort) : null;
}

/** What runs consumed: tokens in + out, and cost in the provider's currency. */
export interface RunUsage {
  tokens: number;
  cost: number;
}

/** A step as the commander (or an API client) proposes it, after validation and defaults. */
export interface StepSpec {
  index: number;
  title: string;
  assignee: string;
  input: string;
  /** every step this one depends on, required and optional alike (so graph checks see all edges) */
  waitFor: number[];
  /**
   * the subset of `waitFor` that is optional: it must have ended (done, skipped, or
   * failed with no decision pending) but need not have succeeded
   */
  optionalWaitFor: number[];
  /**
   * "any k of these": the step is ready once this many of `waitFor` are done or
   * skipped, whatever the rest are doing; null = every dependency counts
   */
  quorum: number | null;
  onFailure: OnFailure;
  maxRetries: number;
  /** limits on this step's own usage, over all its runs (for a for_each step: per item) */
  budget: Budget;
  /** null for an ordinary step */
  forEach: ForEach | null;
  /** the effort the commander asked for; unset: standard (the agent's own model) */
  effort?: Effort;
}

/** A validated plan proposal. */
export interface PlanSpec {
  title: string;
  maxParallel: number;
  /** limits on the usage of all steps together */
  budget: Budget;
  steps: StepSpec[];
}

/** A step with its executor-owned runtime fields. */
export interface StepState extends StepSpec {
  status: StepStatus;
  /** how many times the step has been dispatched */
  attempts: number;
  /** transient failures so far; retries stop at maxRetries */
  transientFailures: number;
  /** epoch ms before which a pending retry must not be dispatched */
  retryAt: number | null;
  outputSummary: string | null;
  outputFiles: string[];
  /** the summary came from untrusted content: fence it when rendered downstream */
  outputUntrusted: boolean;
  failureReason: string | null;
  /** the run currently executing this step; results from any other run are stale */
  liveRunId: string | null;
  /**
   * a twin of `liveRunId` on the agent's alternate model, racing it because the step
   * ran long (core/hedge.ts); its results count as the step's too. Null when none is live
   */
  hedgeRunId: string | null;
  /** the model this attempt was hedged on; set once per attempt (at most one hedge each), null when not hedged */
  hedgeModel: string | null;
  /**
   * the attempt that runs on the agent's escalation model, set when a run failed for a
   * reason a stronger model could fix (at most once per step); null: never escalated
   */
  escalatedAttempt: number | null;
  /** why that attempt was escalated */
  escalationCause: EscalationCause | null;
  /** a failed ask_commander step waiting for the commander's decision */
  decisionPending: boolean;
  /** commander decisions applied to this step so far; bounds the budget ask loop */
  decisionCount: number;
  /**
   * the input as rendered at the step's latest dispatch, form or shared run (null
   * until then); a live step's value is what single-flight compares
   */
  renderedInput: string | null;
  /** what this step's runs consumed, accumulated (a shared run counts once, see reconcile) */
  usage: RunUsage;
  startedAt: number | null;
  endedAt: number | null;
  /**
   * set once a for_each step has expanded: from then on it is a collector (in
   * progress with no run of its own) until every child has ended
   */
  expansion: StepExpansion | null;
  /** on a child of a for_each step: that step's index; null otherwise */
  parentIndex: number | null;
}

export interface PlanState {
  id: string;
  status: PlanStatus;
  maxParallel: number;
  /** limits on the usage of all steps together */
  budget: Budget;
  /** the original request ({{request}}) */
  request: string;
  steps: StepState[];
}

/** Form a blocked step raises; the answer is validated against it. */
/** The kinds of input a form field can be; the form schema, the wire and the browser use this list. */
export const FORM_FIELD_TYPES = ["text", "textarea", "number", "boolean", "select"] as const;
export type FormFieldType = (typeof FORM_FIELD_TYPES)[number];

export interface FormField {
  name: string;
  label: string;
  type: FormFieldType;
  required: boolean;
  options?: string[];
  /**
   * a password, token or key: only the asking run receives the value; everywhere
   * else (events, messages, summaries, the stored answer) it is masked
   */
  secret?: boolean;
}
/** What everyone but the asking run sees in place of a secret field's value. */
export const SECRET_MASK = "••••";

export interface FormSpec {
  title: string;
  fields: FormField[];
}

/**
 * What a run reported. `usage` (when the runtime knows it) is added to the step's
 * usage whatever the outcome: a failed run still spent tokens.
 */
export type RunOutcome =
  | { kind: "ok"; summary: string; files: string[]; untrusted?: boolean; usage?: RunUsage }
  /** `retryAfterMs`: the provider asked to be left alone this long (a durable wait, core/retry-policy.ts) */
  /**
   * `escalation`: the failure is one a stronger model could fix and the agent has an
   * escalation model to try (the executor knows): the step retries once on it
   */
  | { kind: "failed"; transient: boolean; reason: string; retryAfterMs?: number; escalation?: EscalationCause; usage?: RunUsage }
  | { kind: "blocked"; usage?: RunUsage };

export type CommanderDecision =
  | { kind: "retry"; input?: string; assignee?: string }
  | { kind: "skip"; reason?: string }
  | { kind: "abort"; reason?: string }
  | { kind: "append"; steps: StepSpec[] };

/** Everything that can happen to a plan. Reconcile runs once per event. */
export type PlanEvent =
  | { type: "plan-created" }
  | { type: "run-started"; stepIndex: number; runId: string }
  /**
   * applies to every in-progress step whose live run is `runId` (several when steps
   * share one run, see single-flight); `stepIndex` names the step the run was started for
   */
  | { type: "run-finished"; stepIndex: number; runId: string; outcome: RunOutcome }
  /** a live run's process died (lease expired, or found at start-up): a transient failure of every step sharing it */
  | { type: "run-lost"; stepIndex: number; runId: string }
  /**
   * run `runId` of the step has run past its agent's usual time (the executor's p95):
   * race it with a twin on `model`. `estimate` is what a run of the agent usually costs,
   * which the budget must still have room for (core/hedge.ts)
   */
  | { type: "hedge"; stepIndex: number; runId: string; model: string; estimate: RunUsage }
  /** what a run cancelled before its end (it lost a hedge, a Stop) had spent: it counts toward the budgets */
  | { type: "run-usage"; stepIndex: number; runId: string; usage: RunUsage }
  /** a person answered the form of a blocked step (user step: done; agent step: resumes) */
  | {
      type: "form-answered";
      stepIndex: number;
      /** the answer as everyone may see it (secret fields masked): a user step's summary */
      summary: string;
      /** set when the form had secret fields: the answer in the clear, for the resumed run only */
      forAgent?: { answer: string; secrets: string[] };
    }
  | { type: "commander-decision"; stepIndex: number; decision: CommanderDecision }
  /** a retry timer fired (or anything else that only needs readiness re-computed) */
  | { type: "tick" }
  | { type: "cancel"; reason: string }
  /** member controls on a failed step */
  | { type: "retry-step"; stepIndex: number }
  | { type: "skip-step"; stepIndex: number; reason: string }
  /**
   * a member stopped one step's run: the step fails for good ("stopped by <by>", never
   * retried on its own) and its on_failure applies; the plan's other steps go on
   */
  | { type: "stop-step"; stepIndex: number; by: string }
  /**
   * the one event an ended plan accepts: a failed or skipped step (and the steps
   * skipped because of it) goes back to pending and the plan runs again
   */
  | { type: "reopen"; stepIndex: number };

export type PlanEventType = PlanEvent["type"];

/** What the executor must do after a reconcile, inside the same transaction where it can. */
export type PlanCommand =
  /**
   * start a run: sub-agent = visible @mention message; commander = private wake-up.
   * `automaticRetry` (core/failure-policy.ts): the step's earlier hand-off stands for this
   * attempt too, so no new message is posted
   */
  | {
      type: "dispatch";
      stepIndex: number;
      assignee: string;
      renderedInput: string;
      attempt: number;
      runId: string;
      automaticRetry: boolean;
    }
  /** assignee `user`: raise a form in the conversation; the step is now blocked */
  | { type: "open-form"; stepIndex: number; renderedInput: string }
  /**
   * continue the blocked agent session of this step with the form answer, as a new run `runId`;
   * `previousRunId` is the run that blocked (whose session to continue)
   */
  | { type: "resume"; stepIndex: number; answer: string; attempt: number; runId: string; previousRunId: string | null; secrets?: string[] }
  /** start `runId`, a twin of the step's live run `primaryRunId` on the alternate `model` (core/hedge.ts) */
  | {
      type: "hedge";
      stepIndex: number;
      assignee: string;
      renderedInput: string;
      attempt: number;
      runId: string;
      primaryRunId: string;
      model: string;
    }
  /** wake the commander to decide about a failed ask_commander step (or one refused for its budget) */
  | { type: "ask-commander"; stepIndex: number; failureReason: string }
  /** arrange a `tick` at this time (retry backoff) */
  | { type: "schedule-tick"; at: number }
  /** abort a live run (plan cancelled or aborted, or a straggler a quorum no longer needs); never one another live step still shares */
  | { type: "cancel-run"; runId: string; reason?: CancelReason }
  | { type: "plan-ended"; status: Extract<PlanStatus, "completed" | "partial" | "failed" | "cancelled"> };

/** Why reconcile cancels a run, when it is more than "no step needs it any more". */
export type CancelReason = "lost-hedge";

/** Live run counts outside this plan, so pooled limits hold across plans. */
export interface CapacityView {
  /** per agent handle: the limit and how many runs of it are live elsewhere */
  agents: Record<string, { limit: number; live: number }>;
  /** per model id: the limit and how many runs on it are live elsewhere */
  models: Record<string, { limit: number; live: number }>;
  /** which model each agent handle uses */
  agentModel: Record<string, string>;
}

export interface ReconcileInput {
  plan: PlanState;
  event: PlanEvent;
  now: number;
  /** [0, 1); injected so backoff jitter stays deterministic in tests */
  random: () => number;
  /**
   * Mints the id of a run that a dispatch or resume starts. The id is written to the
   * step's `liveRunId` in the same result, so recording the run and deciding to start
   * it stay one atomic unit (no window where a step is in progress without a run id).
   */
  newRunId: () => string;
  capacity: CapacityView;
  /**
   * Agents that cannot take work now, by handle, with the reason a person reads (an admin
   * disabled or deleted the agent). A ready step assigned to one fails with that reason
   * instead of being dispatched. Absent: every assignee is available.
   */
  unavailable?: ReadonlyMap<string, string>;
}

export interface ReconcileResult {
  plan: PlanState;
  commands: PlanCommand[];
  /** indexes of steps whose fields changed (what the executor must write back) */
  changedSteps: number[];
  /** human-readable decisions for the execution log */
  log: { stepIndex: number | null; message: string }[];
  /** set when the event did not apply (the plan is unchanged): why, in words a person can read */
  ignored?: string;
}
