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
  "tool-call": "tool",
  "tool-result": "tool",
  "tool-error": "toolFailed",
  "tool-refused": "toolRefused",
  "tool-malformed": "toolFailed",
  "provider-wait": "waitingForModel",
  workspace: "files",
  hedge: "hedged",
  cancel: "cancelled",
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
  | "cancelled";

export function phaseWord(phase: string): PhaseWord | null {
  return PHASE_WORD[phase] ?? null;
}
