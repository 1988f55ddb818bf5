/**
 * Step input templates: `{{request}}`, `{{step_N.output_summary}}`,
 * `{{step_N.output_files}}`, and in a for_each step `{{item}}` and `{{item_index}}`.
 * Summaries, not transcripts, flow between steps.
 */
import { fenceUntrusted } from "./fence.ts";
import type { StepState } from "./types.ts";

export type TemplateVariable =
  | { kind: "request" }
  | { kind: "step"; stepIndex: number; field: "output_summary" | "output_files" }
  /** for_each only, substituted when the step expands (see substituteItem) */
  | { kind: "item" }
  /** for_each only: the item's 1-based position in the list */
  | { kind: "item_index" };

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
  if (text === "item") return { kind: "item" };
  if (text === "item_index") return { kind: "item_index" };
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

function renderStepField(stepIndex: number, field: "output_summary" | "output_files", step: RenderableStep | undefined): string {
  if (!step) return `(step ${stepIndex} has no output)`;
  if (field === "output_files") {
    if (step.outputFiles.length === 0) return "(no files)";
    // names chosen by a run that read outside content are outside content too
    const names = step.outputFiles.join(", ");
    return step.outputUntrusted ? fenceUntrusted(names, `step_${stepIndex}`) : names;
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
 * "(step N has no output)". Unknown placeholders are left as written, and so are
 * `{{item}}` / `{{item_index}}`: they belong to expansion, never to dispatch.
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
    if (variable.kind === "item" || variable.kind === "item_index") return whole;
    return renderStepField(variable.stepIndex, variable.field, steps.get(variable.stepIndex));
  });
}

const ZERO_WIDTH_SPACE = "\u200B";

/**
 * Keep substituted text from forming a placeholder with its neighbours: every brace
 * of the item is isolated by zero-width spaces, and so is an item edge that touches
 * a brace of the template ("{{{{item}}}}"). The item is model output; without this
 * an item "{{step_2.output_summary}}" would be rendered at dispatch, breaking the
 * one-pass rule. Invisible to a reader, so the agent still sees the item as written.
 */
function inertText(text: string, before: string, after: string): string {
  const isolated = text.replace(/[{}]/g, (brace) => `${ZERO_WIDTH_SPACE}${brace}${ZERO_WIDTH_SPACE}`);
  const lead = before === "{" ? ZERO_WIDTH_SPACE : "";
  const tail = after === "}" ? ZERO_WIDTH_SPACE : "";
  return `${lead}${isolated}${tail}`;
}

/**
 * A for_each child's input: the parent's template with `{{item}}` and
 * `{{item_index}}` (1-based) filled in, every other placeholder left as written for
 * renderTemplate at dispatch. `untrustedSource` (e.g. "step_2") fences the item as
 * data when the list came from untrusted output. The item can never introduce a
 * placeholder of its own (see inertText).
 */
export function substituteItem({
  template,
  item,
  itemIndex,
  untrustedSource,
}: {
  template: string;
  item: string;
  itemIndex: number;
  untrustedSource: string | null;
}): string {
  return template.replace(PLACEHOLDER, (whole: string, inner: string, offset: number, full: string) => {
    const variable = parseVariable(inner.trim());
    if (variable?.kind === "item_index") return String(itemIndex);
    if (variable?.kind !== "item") return whole;
    const text = untrustedSource === null ? item : fenceUntrusted(item, untrustedSource);
    return inertText(text, full[offset - 1] ?? "", full[offset + whole.length] ?? "");
  });
}
