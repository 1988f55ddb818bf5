/**
 * The words of the messages the commander posts about outcomes. Written by the
 * executor from recorded facts, never by a model (DESIGN rule 7): nothing here says
 * "done" unless a step is done. Each comes with its notice (core/notices.ts): the same
 * words as data, for readers of other languages.
 */
import type { MissingStep, OutcomeReport } from "../core/outcome.ts";
import { plural } from "../core/plural.ts";
import { assigneeWords, statusWords, type NoticeItem, type NoticeLine, type Worded } from "../core/notices.ts";

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

function missingLine(step: MissingStep): { text: string; item: NoticeItem } {
  const what = step.status === "skipped" ? "skipped" : step.status === "failed" ? "failed" : `left ${statusWords(step.status)}`;
  const values = { index: step.index, title: step.title, assignee: step.assignee, status: step.status };
  return {
    text: `- Step ${step.index} (${step.title}, ${assigneeWords(step.assignee)}) ${what}: ${step.reason ?? "no reason was recorded"}`,
    item:
      step.reason === null
        ? { key: "planMissingStepUnexplained", values }
        : { key: "planMissingStep", values: { ...values, reason: step.reason } },
  };
}

/**
 * The commander's closing message for a plan that ended. It points to the result, which
 * the step that produced it has already posted just above, instead of repeating it: the
 * final answer is shown once.
 */
export function closingMessage(input: { title: string; report: OutcomeReport }): Worded {
  const { report } = input;
  const lines = [`${HEADLINES[report.status](input.title)}: ${report.done} of ${plural(report.total, "step")} done.`];
  const more: NoticeLine[] = [];
  if (report.delivered.length === 0 && report.status !== "completed") {
    const cancelled = report.status === "cancelled";
    lines.push("", cancelled ? "Nothing was delivered before it stopped." : "No result was delivered.");
    more.push({ key: cancelled ? "planNothingBeforeStop" : "planNoResult", values: {} });
  }
  if (report.delivered.length > 0) {
    const where = report.delivered.map((result) => `step ${result.index} (${result.title})`).join(", ");
    const what = report.status === "completed" ? "answer" : report.delivered.length === 1 ? "result" : "results";
    const sentence = { answer: "The answer is", result: "The result is", results: "The results are" }[what];
    lines.push("", `${sentence} above: ${where}.`);
    more.push({
      key: "planDelivered",
      values: { what },
      list: {
        join: "comma",
        items: report.delivered.map((result) => ({ key: "planDeliveredStep", values: { index: result.index, title: result.title } })),
      },
    });
  }
  if (report.missing.length > 0) {
    const fromResult = report.status === "partial";
    lines.push("", fromResult ? "Missing from the result, and why:" : "What is missing, and why:");
    const listed = report.missing.slice(0, MAX_LISTED_STEPS).map(missingLine);
    lines.push(...listed.map((line) => line.text));
    const bullets = listed.map((line) => line.item);
    const rest = report.missing.length - MAX_LISTED_STEPS;
    if (rest > 0) {
      lines.push(`- …and ${rest} more (see the plan)`);
      bullets.push({ key: "planMissingMore", values: { count: rest } });
    }
    more.push({ key: fromResult ? "planMissingFromResult" : "planMissing", values: {}, bullets });
  }
  return {
    body: lines.join("\n"),
    notice: {
      key: "planEnded",
      values: { status: report.status, title: input.title, done: report.done, total: report.total },
      ...(more.length > 0 ? { more } : {}),
    },
  };
}
