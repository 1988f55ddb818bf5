/**
 * What a finished run means. The runtime only reports (ok, blocked on a form, failed);
 * this module decides, from the launch's kind and the report, what the run row records
 * and what the executor must do: say something, open a form, tell the plan, rule on a
 * decision or create a plan. Pure: the executor (run-lifecycle.ts) reads and writes.
 * Also here: what a run lost with its process means (re-dispatch or tell the plan).
 */
import { formSpecSchema } from "./form-schema.ts";
import type { CommanderDecision, EscalationCause, FinishedRunStatus, FormSpec, RunKind, RunOutcome, StepState } from "./types.ts";
import { toStorableJson, toStorableText, truncateText } from "./text.ts";
import { notices, type Notice, type Worded } from "./notices.ts";

/** Model output is stored and shown, so it is bounded. */
export const MAX_TEXT_CHARS = 100_000;
export const MAX_SUMMARY_CHARS = 8_000;
export const MAX_OUTPUT_FILES = 100;
export const MAX_FILE_NAME_CHARS = 200;
const TRUNCATED = "\n\n…(truncated)";

/** Model output cut to `max` (with the marker) on a character boundary, and made storable. */
export const clip = (text: string, max: number) => (text.length > max ? `${truncateText(text, max)}${TRUNCATED}` : toStorableText(text));

/** A runtime's report, without its usage (which every plan-facing outcome carries as is). */
export type RunReport =
  | {
      kind: "ok";
      text: string;
      /** the text is the runtime's own words (a reply with nothing to say), as data */
      notice?: Notice;
      summary: string;
      files: string[];
      untrusted: boolean;
      plan?: unknown;
      decision?: unknown;
    }
  | { kind: "blocked"; form: unknown; text: string }
  | { kind: "failed"; transient: boolean; reason: string; retryAfterMs?: number; cause?: EscalationCause };

/** The finished run as the core sees it. */
export interface FinishedRun {
  kind: RunKind;
  /** the step it ran for, null for a run outside a plan step */
  stepIndex: number | null;
  /** whether it belongs to a plan (a decision and a commander step do; a chat never) */
  inPlan: boolean;
  /** the agent has an escalation model and this run was not already on it */
  canEscalate?: boolean;
}

/** The kind of a message the run posts. */
export type SaidKind = "result" | "decision" | "plan" | "error" | "text";

/**
 * One thing the executor does for a finished run, in order. A `report` or `decide`
 * with a notice also posts a message once the plan has ruled (runFailureNotice,
 * decisionNotice): what is said must match what applied.
 */
export type RunEffect =
  /** `notice`: the body is the server's own words (core/notices.ts) */
  | { kind: "say"; body: string; as: SaidKind; notice?: Notice }
  | { kind: "open-form"; form: FormSpec; body: string }
  /** tell the plan its step's run finished; `notice: failure` posts a failure that sticks */
  | { kind: "report"; stepIndex: number; outcome: RunOutcome; notice: "failure" | null }
  /** tell the plan the commander decided (a decision already checked) */
  | { kind: "decide"; stepIndex: number; decision: CommanderDecision }
  /** check the commander's raw decision (checkDecision), then decide, then say `text` (decisionNotice) */
  | { kind: "rule-decision"; stepIndex: number; raw: unknown; text: string }
  /** validate the commander's raw plan and create it, posting `text` with it */
  | { kind: "create-plan"; raw: unknown; text: string };

/** What the run row records and what to do about it. */
export interface RunVerdict {
  status: FinishedRunStatus;
  error: string | null;
  effects: RunEffect[];
}

/** The row's status and error for a report. */
function recorded(report: RunReport): Pick<RunVerdict, "status" | "error"> {
  switch (report.kind) {
    case "ok":
      return { status: "succeeded", error: null };
    case "blocked":
      return { status: "blocked", error: null };
    case "failed":
      return { status: "failed", error: report.reason };
    default:
      return report satisfies never;
  }
}

const failedSay = (reason: string): RunEffect => ({ kind: "say", ...notices.failed(reason), as: "error" });

/** A failure that is the run's own (not a retry): said, then told to the plan if the run has a step. */
function failHard(run: FinishedRun, reason: string, abortReason = reason): RunEffect[] {
  const effects: RunEffect[] = [failedSay(reason)];
  if (run.stepIndex === null) return effects;
  if (run.kind === "decision") effects.push({ kind: "decide", stepIndex: run.stepIndex, decision: { kind: "abort", reason: abortReason } });
  else effects.push({ kind: "report", stepIndex: run.stepIndex, outcome: { kind: "failed", transient: false, reason }, notice: null });
  return effects;
}

function blockedEffects(run: FinishedRun, report: Extract<RunReport, { kind: "blocked" }>): RunEffect[] {
  const form = formSpecSchema.safeParse(report.form);
  if (!form.success) {
    // model output is untrusted: a malformed form is the run's failure, not a crash
    const issues = form.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`).join("; ");
    const reason = `the agent asked with an invalid form: ${issues}`;
    // a decision that asks is reported like any failed run (it has no form to wait on)
    const effects: RunEffect[] = [failedSay(reason)];
    if (run.stepIndex !== null)
      effects.push({ kind: "report", stepIndex: run.stepIndex, outcome: { kind: "failed", transient: false, reason }, notice: null });
    return effects;
  }
  // The commander cannot wait on a form here: a real failure of the run.
  if (run.kind !== "step" && run.kind !== "mention") return failHard(run, "the commander asked for input it cannot wait for");
  const effects: RunEffect[] = [{ kind: "open-form", form: form.data, body: clip(report.text, MAX_TEXT_CHARS) || form.data.title }];
  if (run.stepIndex !== null) effects.push({ kind: "report", stepIndex: run.stepIndex, outcome: { kind: "blocked" }, notice: null });
  return effects;
}

function failedEffects(run: FinishedRun, report: Extract<RunReport, { kind: "failed" }>): RunEffect[] {
  if (run.kind === "decision") return failHard(run, report.reason, `the commander could not decide: ${report.reason}`);
  if (run.stepIndex === null) return [failedSay(report.reason)];
  // An attempt that will be retried is not news: it goes to the step's log and its
  // status line. Only a failure that sticks is posted (runFailureNotice).
  return [
    {
      kind: "report",
      stepIndex: run.stepIndex,
      outcome: {
        kind: "failed",
        transient: report.transient,
        reason: report.reason,
        ...(report.retryAfterMs === undefined ? {} : { retryAfterMs: report.retryAfterMs }),
        ...(report.cause !== undefined && run.canEscalate === true ? { escalation: report.cause } : {}),
      },
      notice: "failure",
    },
  ];
}

function okEffects(run: FinishedRun, report: Extract<RunReport, { kind: "ok" }>): RunEffect[] {
  const text = clip(report.text, MAX_TEXT_CHARS);
  if (run.kind === "decision") {
    return run.stepIndex === null ? [] : [{ kind: "rule-decision", stepIndex: run.stepIndex, raw: report.decision, text }];
  }
  if (run.kind === "chat" && report.plan !== undefined) return [{ kind: "create-plan", raw: report.plan, text }];
  const effects: RunEffect[] = [];
  if (text.trim())
    effects.push({ kind: "say", body: text, as: run.inPlan ? "result" : "text", ...(report.notice ? { notice: report.notice } : {}) });
  if (run.stepIndex !== null) {
    effects.push({
      kind: "report",
      stepIndex: run.stepIndex,
      outcome: {
        kind: "ok",
        summary: clip(report.summary, MAX_SUMMARY_CHARS),
        files: report.files.slice(0, MAX_OUTPUT_FILES).map((name) => clip(name, MAX_FILE_NAME_CHARS)),
        untrusted: report.untrusted,
      },
      notice: null,
    });
  }
  return effects;
}

/** The verdict on a finished run: what its row records and what the executor does, in order. */
export function runVerdict(run: FinishedRun, raw: RunReport): RunVerdict {
  // model output, tool-made plans and failure reasons come from outside: what is stored must be storable
  const report = toStorableJson(raw);
  const effects =
    report.kind === "ok" ? okEffects(run, report) : report.kind === "blocked" ? blockedEffects(run, report) : failedEffects(run, report);
  return { ...recorded(report), effects };
}

/**
 * After a failure was reported: the message to post, or null. Not applied (the plan
 * had moved on): the runtime's reason. Applied: the recorded reason of the first step
 * on this run that did not go back for a retry; null when every one did.
 */
export function runFailureNotice(input: {
  applied: boolean;
  before: readonly StepState[];
  after: readonly StepState[];
  runId: string;
  reason: string;
}): Worded | null {
  if (!input.applied) return notices.failed(input.reason);
  const stuck = stepsStuckAfter(input.before, input.after, input.runId);
  return stuck.length === 0 ? null : notices.failed(stuck[0].failureReason ?? input.reason);
}

/**
 * The steps that were live on `runId` and did not go back to pending for a transient
 * retry in this reconcile: their failure sticks (failed, skipped, or the plan ended).
 */
export function stepsStuckAfter(before: readonly StepState[], after: readonly StepState[], runId: string): StepState[] {
  const stuck: StepState[] = [];
  for (const was of before) {
    if (was.status !== "in_progress" || was.liveRunId !== runId) continue;
    const now = after.find((step) => step.index === was.index);
    const retried = now?.status === "pending" && now.transientFailures > was.transientFailures;
    // still in progress: its hedge twin took over (core/hedge.ts), nothing failed yet
    const goesOn = now?.status === "in_progress";
    if (now && !retried && !goesOn) stuck.push(now);
  }
  return stuck;
}

/**
 * What the commander's decision message says once the plan ruled: its words (or a
 * default), and that they changed nothing when someone acted on the step first.
 */
export function decisionNotice(input: {
  applied: boolean;
  text: string;
  decision: CommanderDecision;
  stepIndex: number;
  step: StepState | undefined;
}): { body: string; notice: Notice | null } {
  if (input.applied) return input.text ? { body: input.text, notice: null } : notices.decisionDefault(input.stepIndex, input.decision.kind);
  return notices.decisionNotApplied({ said: input.text, decision: input.decision.kind, step: input.step });
}

/** A lost run as stored: enough to decide what its loss means. */
export interface LostRun {
  kind: RunKind;
  /** the index of the plan step it ran for, if the step still exists */
  stepIndex: number | null;
  attempt: number;
  /** the agent still exists (a deleted agent's run is not started again) */
  hasAgent: boolean;
}

/** Runs outside a plan step are started again at most this many times in all. */
export const MAX_LOST_RUN_ATTEMPTS = 2;

export const LOST_RUN_ERROR = "the run was lost (its process stopped)";

/** Why a plan is aborted when the commander's decision about its step was lost for good. */
export const LOST_DECISION_REASON = "the commander's decision was lost (its process stopped)";

/**
 * What a run lost with its process means. A step's run (its own or the commander's
 * step) is a transient failure the plan decides about; any other run (mention, chat,
 * decision) is started again once, as a new attempt; after that it stays lost, but for a
 * decision, whose step would wait for it for ever: its plan is aborted, as when the
 * decision run fails.
 */
export type LostRunVerdict =
  | { kind: "tell-plan"; stepIndex: number }
  | { kind: "redispatch"; attempt: number }
  | { kind: "abort-decision"; stepIndex: number }
  | { kind: "none" };

export function lostRunVerdict(run: LostRun): LostRunVerdict {
  if (run.stepIndex !== null && (run.kind === "step" || run.kind === "commander-step"))
    return { kind: "tell-plan", stepIndex: run.stepIndex };
  if (run.hasAgent && run.attempt < MAX_LOST_RUN_ATTEMPTS) return { kind: "redispatch", attempt: run.attempt + 1 };
  if (run.kind === "decision" && run.stepIndex !== null) return { kind: "abort-decision", stepIndex: run.stepIndex };
  return { kind: "none" };
}
