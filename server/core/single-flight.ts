/**
 * Similar subtasks run once: within one plan, a step whose assignee and rendered
 * input match a step that is already running joins that run instead of starting
 * another (single-flight), and the run's result fans out to every step on it.
 */
import { USER_ASSIGNEE, type StepState } from "./types.ts";

// Sentence punctuation, quotes and brackets: they reword a request without changing it.
// Symbols inside words (`C#`, `C++`, `node.js`'s dot aside) stay, and a separator becomes
// a space, so "3.5" and "35" never meet.
const REWORDING = /[.,;:!?¿¡…"'`“”‘’„«»()[\]{}<>]/g;

/**
 * The form of a rendered input that single-flight compares: Unicode-normalised (NFKC),
 * lower-case, sentence punctuation and quotes taken out, every run of whitespace one
 * space. "Compare Postgres." and "compare postgres" ask the same thing; "C#" and "C" do
 * not.
 */
export function normalizeInput(text: string): string {
  return text.normalize("NFKC").toLowerCase().replace(REWORDING, " ").trim().replace(/\s+/g, " ");
}

/**
 * Runs of this assignee may be shared. A `user` step is a form for a person, not a
 * run, so two identical questions are still asked separately.
 */
export function canShareRuns(assignee: string): boolean {
  return assignee !== USER_ASSIGNEE;
}

/**
 * The in-progress steps whose live run is `runId`, lowest index first: every step a
 * result of that run applies to. Empty when the run is stale. A step with no run (a
 * collecting for_each step) is never on one, whatever a malformed event says.
 */
export function stepsSharingRun<T extends Pick<StepState, "index" | "status" | "liveRunId">>(steps: readonly T[], runId: string): T[] {
  return steps
    .filter((step) => step.status === "in_progress" && step.liveRunId !== null && step.liveRunId === runId)
    .sort((a, b) => a.index - b.index);
}

/**
 * A step other than `step` that is running right now with the same assignee and
 * the same normalized rendered input, i.e. whose run `step` can join; undefined if
 * none (or if the assignee's runs are never shared).
 */
export function liveTwin(
  steps: readonly StepState[],
  step: Pick<StepState, "index" | "assignee" | "effort">,
  renderedInput: string,
): StepState | undefined {
  if (!canShareRuns(step.assignee)) return undefined;
  const key = normalizeInput(renderedInput);
  return steps.find(
    (other) =>
      other.index !== step.index &&
      other.status === "in_progress" &&
      other.liveRunId !== null &&
      other.assignee === step.assignee &&
      // a different effort may run on a different model: not the same run
      (other.effort ?? "standard") === (step.effort ?? "standard") &&
      other.renderedInput !== null &&
      normalizeInput(other.renderedInput) === key,
  );
}
