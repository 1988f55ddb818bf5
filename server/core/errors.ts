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

/**
 * How many issues an error carries and prints. A hostile proposal can hold hundreds of
 * thousands of problems; listing them all once made a 60 MB answer. The rest are counted.
 */
export const MAX_REPORTED_ISSUES = 50;

/**
 * Collects issues up to MAX_REPORTED_ISSUES and only counts the rest, so validating a
 * hostile proposal allocates a bounded list however many problems it has.
 */
export class IssueCollector<T> {
  readonly kept: T[] = [];
  private total = 0;

  constructor(private readonly cap = MAX_REPORTED_ISSUES) {}

  push(item: T): void {
    this.total += 1;
    if (this.kept.length < this.cap) this.kept.push(item);
  }

  /** Counts an issue and builds it only if it will be kept. */
  pushLazy(make: () => T): void {
    if (this.kept.length < this.cap) this.push(make());
    else this.total += 1;
  }

  pushAll(items: Iterable<T>): void {
    for (const item of items) this.push(item);
  }

  get count(): number {
    return this.total;
  }

  get omitted(): number {
    return this.total - this.kept.length;
  }
}

/**
 * A proposed plan (or appended steps) was rejected; `issues` lists the first
 * MAX_REPORTED_ISSUES problems found and `omittedIssues` counts the others.
 */
export class PlanValidationError extends Error {
  readonly code = "plan_invalid" as const;
  readonly issues: PlanIssue[];
  readonly omittedIssues: number;

  constructor(found: PlanIssue[] | IssueCollector<PlanIssue>) {
    const collector = found instanceof IssueCollector ? found : collect(found);
    const total = collector.count;
    const more = collector.omitted > 0 ? `\n- … and ${collector.omitted} more` : "";
    super(
      `The plan is invalid (${total} ${total === 1 ? "issue" : "issues"}):\n` +
        collector.kept.map((issue) => `- ${describePlanIssue(issue)}`).join("\n") +
        more,
    );
    this.name = "PlanValidationError";
    this.issues = collector.kept;
    this.omittedIssues = collector.omitted;
  }
}

function collect<T>(items: T[]): IssueCollector<T> {
  const collector = new IssueCollector<T>();
  collector.pushAll(items);
  return collector;
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
