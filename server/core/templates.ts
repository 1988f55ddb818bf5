/**
 * Step input templates: `{{request}}`, `{{step_N.output_summary}}`,
 * `{{step_N.output_files}}`. Summaries, not transcripts, flow between steps.
 */
import type { StepState } from "./types.ts";

export type TemplateVariable =
  | { kind: "request" }
  | { kind: "step"; stepIndex: number; field: "output_summary" | "output_files" };

export interface TemplateRefs {
  variables: TemplateVariable[];
  /** the text inside braces that is not a known variable, trimmed, e.g. "step_2.output" */
  unknown: string[];
}

// `[^{}]` keeps a match inside one pair of braces, so "{{{{request}}" cannot swallow text
const PLACEHOLDER = /\{\{([^{}]*)\}\}/g;
const STEP_VARIABLE = /^step_(\d+)\.(output_summary|output_files)$/;

function parseVariable(text: string): TemplateVariable | null {
  if (text === "request") return { kind: "request" };
  const match = STEP_VARIABLE.exec(text);
  if (!match) return null;
  const stepIndex = Number(match[1]);
  if (!Number.isSafeInteger(stepIndex)) return null;
  return { kind: "step", stepIndex, field: match[2] as "output_summary" | "output_files" };
}

/** Every placeholder in a template, in order of appearance (repeats included). */
export function parseTemplateRefs(template: string): TemplateRefs {
  const variables: TemplateVariable[] = [];
  const unknown: string[] = [];
  for (const match of template.matchAll(PLACEHOLDER)) {
    const text = match[1].trim();
    const variable = parseVariable(text);
    if (variable) variables.push(variable);
    else unknown.push(text);
  }
  return { variables, unknown };
}

export type RenderableStep = Pick<StepState, "status" | "outputSummary" | "outputFiles" | "outputUntrusted" | "failureReason">;

export const UNTRUSTED_OPEN_TAG = "untrusted-data";

/**
 * Wrap text that came from outside (fetched pages, uploads, tool output) so the
 * next agent reads it as data. Any tag that looks like the fence, in any case or
 * spacing, is defanged so the text cannot close the fence early and speak as
 * instructions.
 */
export function fenceUntrusted(text: string, source: string): string {
  const defanged = text.replace(/<(\s*\/?\s*)untrusted-data/gi, "&lt;$1untrusted-data");
  return `<${UNTRUSTED_OPEN_TAG} source="${source}">\n${defanged}\n</${UNTRUSTED_OPEN_TAG}>`;
}

function renderStepField(stepIndex: number, field: "output_summary" | "output_files", step: RenderableStep | undefined): string {
  if (!step) return `(step ${stepIndex} has no output)`;
  if (field === "output_files") {
    return step.outputFiles.length > 0 ? step.outputFiles.join(", ") : "(no files)";
  }
  if (step.status === "skipped") return `(step ${stepIndex} was skipped)`;
  // a failed optional dependency does not hold its consumer; whatever it left is not output
  if (step.status === "failed" || step.outputSummary === null) return `(step ${stepIndex} has no output)`;
  return step.outputUntrusted ? fenceUntrusted(step.outputSummary, `step_${stepIndex}`) : step.outputSummary;
}

/**
 * Render a step input at dispatch time. One pass: text that was substituted is
 * never scanned again, so a summary containing "{{request}}" stays literal.
 * Never throws: validation guarantees references, and a missing step renders as
 * "(step N has no output)". Unknown placeholders are left as written.
 */
export function renderTemplate({
  template,
  request,
  steps,
}: {
  template: string;
  request: string;
  steps: ReadonlyMap<number, RenderableStep>;
}): string {
  return template.replace(PLACEHOLDER, (whole: string, inner: string) => {
    const variable = parseVariable(inner.trim());
    if (!variable) return whole;
    if (variable.kind === "request") return request;
    return renderStepField(variable.stepIndex, variable.field, steps.get(variable.stepIndex));
  });
}
