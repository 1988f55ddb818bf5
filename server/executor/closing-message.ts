/**
 * The words of the messages the commander posts about outcomes. Written by the
 * executor from recorded facts, never by a model (DESIGN rule 7): nothing here says
 * "done" unless a step is done.
 */
import { COMMANDER_ASSIGNEE, type StepState } from "../core/types.ts";
import type { MissingStep, OutcomeReport } from "../core/outcome.ts";
import { plural } from "../core/plural.ts";

/** A closing message lists at most this many missing steps (a for_each can have 100 items). */
export const MAX_LISTED_STEPS = 12;

const HEADLINES: Record<OutcomeReport["status"], (title: string) => string> = {
  completed: (title) => `**${title}** completed`,
  partial: (title) => `**${title}** is only partly done (partial)`,
  failed: (title) => `**${title}** failed`,
  cancelled: (title) => `**${title}** was cancelled`,
  running: (title) => `**${title}** is still running`,
  paused: (title) => `**${title}** is waiting for an answer`,
};

function missingLine(step: MissingStep): string {
  const what = step.status === "skipped" ? "skipped" : step.status === "failed" ? "failed" : `left ${step.status.replace("_", " ")}`;
  const who = step.assignee === COMMANDER_ASSIGNEE ? "the commander" : `@${step.assignee}`;
  return `- Step ${step.index} (${step.title}, ${who}) ${what}: ${step.reason ?? "no reason was recorded"}`;
}

/**
 * The commander's closing message for a plan that ended. It points to the result, which
 * the step that produced it has already posted just above, instead of repeating it: the
 * final answer is shown once.
 */
export function closingMessage(input: { title: string; report: OutcomeReport }): string {
  const { report } = input;
  const lines = [`${HEADLINES[report.status](input.title)}: ${report.done} of ${plural(report.total, "step")} done.`];
  if (report.delivered.length === 0 && report.status !== "completed") {
    lines.push("", report.status === "cancelled" ? "Nothing was delivered before it stopped." : "No result was delivered.");
  }
  if (report.delivered.length > 0) {
    const where = report.delivered.map((result) => `step ${result.index} (${result.title})`).join(", ");
    const what = report.status === "completed" ? "The answer" : report.delivered.length === 1 ? "The result" : "The results";
    lines.push("", `${what} ${report.delivered.length === 1 || what === "The answer" ? "is" : "are"} above: ${where}.`);
  }
  if (report.missing.length > 0) {
    lines.push("", report.status === "partial" ? "Missing from the result, and why:" : "What is missing, and why:");
    for (const step of report.missing.slice(0, MAX_LISTED_STEPS)) lines.push(missingLine(step));
    const more = report.missing.length - MAX_LISTED_STEPS;
    if (more > 0) lines.push(`- …and ${more} more (see the plan)`);
  }
  return lines.join("\n");
}

/** A step that failed for good, was retried on someone's decision, and then succeeded. */
export function recoveryMessage(step: Pick<StepState, "index" | "title" | "attempts">): string {
  return `Step ${step.index} (${step.title}) succeeded on attempt ${step.attempts} after a retry; its earlier failure no longer holds.`;
}
