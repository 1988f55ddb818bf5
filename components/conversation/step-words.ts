/**
 * A step's machinery in the words a person would use (the drawer's default view). The
 * stored names (`ask_commander`, `dispatch`, `model-timing`) stay in its Details; the
 * words themselves are messages (stepDrawer.onFailure.*, stepDrawer.phase.*).
 */

/** Log phases shown by default, by the message that names them; the others are kept for Details. */
const PHASE_WORD: Record<string, PhaseWord> = {
  dispatch: "started",
  retry: "retry",
  resume: "resumed",
  blocked: "askedPerson",
  "run-end": "finished",
  "run-failed": "failed",
  "plan-ended": "planEnded",
  // one line per tool call: its result (same tool name) would read as a second call;
  // failures have their own phases, and Details keeps the result
  "tool-call": "tool",
  "tool-error": "toolFailed",
  "tool-refused": "toolRefused",
  "tool-malformed": "toolFailed",
  "provider-wait": "waitingForModel",
  workspace: "files",
  hedge: "hedged",
  cancel: "cancelled",
  model: "model",
};

export type PhaseWord =
  | "started"
  | "retry"
  | "resumed"
  | "askedPerson"
  | "finished"
  | "failed"
  | "planEnded"
  | "tool"
  | "toolFailed"
  | "toolRefused"
  | "waitingForModel"
  | "files"
  | "hedged"
  | "cancelled"
  | "model";

function phaseWord(phase: string): PhaseWord | null {
  return PHASE_WORD[phase] ?? null;
}

/** The entries of a step's log the drawer shows by default, each with its word. */
export function plainLog<Entry extends { phase: string }>(log: readonly Entry[]): { entry: Entry; word: PhaseWord }[] {
  return log.flatMap((entry) => {
    const word = phaseWord(entry.phase);
    return word ? [{ entry, word }] : [];
  });
}

/** Why a step was escalated (core/types.ts ESCALATION_CAUSES) as the select value of stepDrawer.modelReason. */
export function causeWord(cause: string | undefined): "malformed" | "plan" | "refused" | "other" {
  if (cause === "malformed-tool-calls") return "malformed";
  if (cause === "plan-rejected") return "plan";
  return cause === "refused" ? "refused" : "other";
}

/** A run's model reason (core/run-model.ts) as the select value of stepDrawer.modelReason. */
export function reasonWord(reason: string | undefined): "agent" | "light" | "deep" | "escalation" | "hedge" {
  switch (reason) {
    case "effort:light":
      return "light";
    case "effort:deep":
      return "deep";
    case "escalation":
    case "hedge":
      return reason;
    default:
      return "agent";
  }
}
