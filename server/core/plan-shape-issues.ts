/**
 * Zod's issues with a proposed plan, as plan issues that name the step by its declared
 * index (what the commander wrote) rather than by array position.
 */
import type { z } from "zod";
import { IssueCollector, type PlanIssue } from "./errors.ts";

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Map zod issues to plan issues: `steps.2.wait_for.0` becomes the step's declared index
 * and "wait_for". Only the first MAX_REPORTED_ISSUES are mapped; the rest are counted.
 */
export function shapeIssues(error: z.ZodError, rawSteps: unknown, stepsPath: PropertyKey[]): IssueCollector<PlanIssue> {
  const collector = new IssueCollector<PlanIssue>();
  for (const issue of error.issues) collector.pushLazy(() => shapeIssue(issue));
  return collector;

  function shapeIssue(issue: z.core.$ZodIssue): PlanIssue {
    const path = issue.path;
    const underSteps = stepsPath.every((key, i) => path[i] === key);
    const position = underSteps ? path[stepsPath.length] : undefined;
    if (typeof position !== "number") {
      // an unknown key inside a nested object (budget) is reported on that object
      const field =
        issue.code === "unrecognized_keys" && path.length === 0
          ? issue.keys.join(", ")
          : path.map(String).join(".") || (stepsPath.length === 0 ? "steps" : "plan");
      const message = issue.code === "unrecognized_keys" ? `unknown field (${issue.message})` : issue.message;
      return { stepIndex: null, field, message };
    }
    const rawStep: unknown = Array.isArray(rawSteps) ? rawSteps[position] : undefined;
    const declared: unknown = isRecord(rawStep) ? rawStep.index : undefined;
    const stepIndex = typeof declared === "number" && Number.isInteger(declared) ? declared : null;
    const rest = path.slice(stepsPath.length + 1);
    if (issue.code === "unrecognized_keys") {
      // on the step itself the key is the field; inside wait_for or budget, that field is
      const field = rest.length > 0 ? String(rest[0]) : issue.keys.join(", ");
      return { stepIndex, field, message: `unknown field (${issue.message})` };
    }
    const field = rest.length > 0 ? String(rest[0]) : "step";
    // a step that is not at the position its index claims is easier to find by position
    const where = stepIndex === null ? ` (the step at position ${position + 1})` : "";
    return { stepIndex, field, message: issue.message + where };
  }
}
