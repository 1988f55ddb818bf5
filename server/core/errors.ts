/**
 * Typed errors of the core. Callers decide what to show from `code` and `issues`,
 * never by parsing the message.
 */

export interface PlanIssue {
  /** the step the issue is about, or null for the plan as a whole */
  stepIndex: number | null;
  /** the raw (snake_case) field name, e.g. "wait_for" */
  field: string;
  message: string;
}

function describePlanIssue(issue: PlanIssue): string {
  const where = issue.stepIndex === null ? issue.field : `step ${issue.stepIndex}, ${issue.field}`;
  return `${where}: ${issue.message}`;
}

/** A proposed plan (or appended steps) was rejected; `issues` lists every problem found. */
export class PlanValidationError extends Error {
  readonly code = "plan_invalid" as const;
  readonly issues: PlanIssue[];

  constructor(issues: PlanIssue[]) {
    super(
      `The plan is invalid (${issues.length} ${issues.length === 1 ? "issue" : "issues"}):\n` +
        issues.map((issue) => `- ${describePlanIssue(issue)}`).join("\n"),
    );
    this.name = "PlanValidationError";
    this.issues = issues;
  }
}

export interface FormAnswerIssue {
  /** the form field name, or "" for the answer as a whole */
  field: string;
  message: string;
}

/** A form answer does not fit the form it answers. */
export class FormAnswerError extends Error {
  readonly code = "form_answer_invalid" as const;
  readonly issues: FormAnswerIssue[];

  constructor(issues: FormAnswerIssue[]) {
    super(
      "The form answer is invalid:\n" +
        issues.map((issue) => `- ${issue.field === "" ? "answer" : issue.field}: ${issue.message}`).join("\n"),
    );
    this.name = "FormAnswerError";
    this.issues = issues;
  }
}
