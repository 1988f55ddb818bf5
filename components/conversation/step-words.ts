/**
 * A step's machinery in the words a person would use (the drawer's default view). The
 * stored names (`ask_commander`, `dispatch`, `model-timing`) stay in its Details.
 */
import type { StepDTO } from "@/server/protocol/dto.ts";

export const ON_FAILURE_WORDS: Record<StepDTO["onFailure"], string> = {
  abort_plan: "stop the plan",
  continue: "carry on without it",
  ask_commander: "ask the commander what to do",
};

/** Log phases shown by default, in plain words; the others are kept for Details. */
const PHASE_WORDS: Record<string, string> = {
  dispatch: "started",
  retry: "retry",
  resume: "resumed",
  blocked: "asked a person",
  "run-end": "finished",
  "run-failed": "failed",
  "plan-ended": "plan ended",
  "tool-call": "tool",
  "tool-result": "tool",
  "tool-error": "tool failed",
  "tool-refused": "tool refused",
  "tool-malformed": "tool failed",
  "provider-wait": "waiting for the model",
  workspace: "files",
};

export function phaseWords(phase: string): string | null {
  return PHASE_WORDS[phase] ?? null;
}
