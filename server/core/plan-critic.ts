/**
 * A second reading of a valid plan, for what makes plans good rather than legal:
 * each delegated step states an objective and what it must hand back, no two steps
 * ask the same thing, parallel work is brought together, and a template reads only
 * steps its step waits for. validatePlan refuses what cannot run; the critic names
 * what would run badly, and the commander gets one chance to fix it.
 */
import { parseTemplateRefs } from "./templates.ts";
import { normalizeInput } from "./single-flight.ts";
import { COMMANDER_ASSIGNEE, USER_ASSIGNEE, type PlanSpec, type StepSpec } from "./types.ts";

export const PLAN_FINDING_KINDS = [
  "no-objective",
  "no-expected-output",
  "near-duplicate",
  "fan-out-without-synthesis",
  "reads-unawaited-step",
] as const;
export type PlanFindingKind = (typeof PLAN_FINDING_KINDS)[number];

export interface PlanFinding {
  kind: PlanFindingKind;
  /** the steps concerned, lowest index first */
  steps: number[];
  message: string;
}

/** Fewer words than this, templates aside, cannot state an objective and boundaries. */
export const MIN_OBJECTIVE_WORDS = 6;
/** Word-shingle overlap (Jaccard) at or above which two steps ask the same thing. */
export const NEAR_DUPLICATE_SIMILARITY = 0.85;

// Words that say what a step must hand back. Checked on whole words, any case.
const OUTPUT_WORDS =
  /\b(output|return|returns|deliver|deliverable|produce|report|summar(?:y|ise|ize)|list|table|answer|write|draft|recommend(?:ation)?|verdict|result|results|give|provide|compare|comparison|findings?|outline|plan|patch|diff|commit|file|files|format|json|markdown|bullet|bullets|score|rank|ranking|estimate|decide|decision)\b/i;

/** The step's own words: its input with every `{{…}}` placeholder removed. */
function ownWords(input: string): string[] {
  return input
    .replace(/\{\{[^{}]*\}\}/g, " ")
    .split(/\s+/)
    .map((word) => word.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, ""))
    .filter((word) => word !== "");
}

/** Is this step given to an agent that needs a brief? A form for a person is its own brief. */
function isDelegated(step: StepSpec): boolean {
  return step.assignee !== USER_ASSIGNEE && step.forEach === null;
}

function shingles(text: string): Set<string> {
  const words = normalizeInput(text).split(" ");
  if (words.length < 3) return new Set([words.join(" ")]);
  const result = new Set<string>();
  for (let i = 0; i + 3 <= words.length; i += 1) result.add(words.slice(i, i + 3).join(" "));
  return result;
}

/** Jaccard similarity of two texts' three-word shingles (1 = the same words in the same order). */
export function inputSimilarity(a: string, b: string): number {
  const left = shingles(a);
  const right = shingles(b);
  let shared = 0;
  for (const shingle of left) if (right.has(shingle)) shared += 1;
  const union = left.size + right.size - shared;
  return union === 0 ? 1 : shared / union;
}

function briefFindings(step: StepSpec): PlanFinding[] {
  if (!isDelegated(step)) return [];
  const words = ownWords(step.input);
  const findings: PlanFinding[] = [];
  if (words.length < MIN_OBJECTIVE_WORDS) {
    findings.push({
      kind: "no-objective",
      steps: [step.index],
      message: `Step ${step.index} ("${step.title}") gives its assignee ${words.length} word(s) of its own: state the objective and its boundaries.`,
    });
  }
  if (step.assignee !== COMMANDER_ASSIGNEE && !OUTPUT_WORDS.test(words.join(" "))) {
    findings.push({
      kind: "no-expected-output",
      steps: [step.index],
      message: `Step ${step.index} ("${step.title}") does not say what to hand back: name the expected output (e.g. "Return a summary of …", "List …").`,
    });
  }
  return findings;
}

function duplicateFindings(steps: readonly StepSpec[]): PlanFinding[] {
  const findings: PlanFinding[] = [];
  const delegated = steps.filter(isDelegated);
  for (let i = 0; i < delegated.length; i += 1) {
    for (let j = i + 1; j < delegated.length; j += 1) {
      const [a, b] = [delegated[i], delegated[j]];
      if (a.assignee !== b.assignee) continue;
      if (inputSimilarity(a.input, b.input) < NEAR_DUPLICATE_SIMILARITY) continue;
      findings.push({
        kind: "near-duplicate",
        steps: [a.index, b.index],
        message: `Steps ${a.index} and ${b.index} ask @${a.assignee} nearly the same thing: merge them, or say what makes each different.`,
      });
    }
  }
  return findings;
}

/**
 * Parallel branches that nobody reads: two or more steps end the plan (no step waits
 * for them) while none of them waits for the others. One sink, or a plan of one step,
 * is fine; several sinks leave the results unjoined.
 */
function synthesisFindings(steps: readonly StepSpec[]): PlanFinding[] {
  if (steps.length < 2) return [];
  const awaited = new Set(steps.flatMap((step) => step.waitFor));
  const sinks = steps.filter((step) => !awaited.has(step.index)).map((step) => step.index);
  if (sinks.length < 2) return [];
  return [
    {
      kind: "fan-out-without-synthesis",
      steps: sinks,
      message: `Steps ${sinks.join(", ")} all end the plan and nothing brings their results together: add a final step (usually assignee commander) that waits for them and writes the answer.`,
    },
  ];
}

/**
 * A template naming a step that is upstream only through another step: it renders,
 * but the step did not say it needs that result, so an optional edge or a quorum in
 * between can start it before the result exists.
 */
function readsUnawaitedFindings(step: StepSpec): PlanFinding[] {
  const direct = new Set(step.waitFor);
  const read = new Set<number>();
  for (const variable of parseTemplateRefs(step.input).variables) {
    if (variable.kind === "step" && !direct.has(variable.stepIndex)) read.add(variable.stepIndex);
  }
  return [...read]
    .sort((a, b) => a - b)
    .map((upstream) => ({
      kind: "reads-unawaited-step" as const,
      steps: [step.index, upstream],
      message: `Step ${step.index} reads step ${upstream}'s output but does not wait for step ${upstream}: add ${upstream} to its wait_for.`,
    }));
}

/** Everything the critic finds in a valid plan, in step order; empty for a good plan. */
export function critiquePlan(plan: PlanSpec): PlanFinding[] {
  const findings = [
    ...plan.steps.flatMap((step) => [...briefFindings(step), ...readsUnawaitedFindings(step)]),
    ...duplicateFindings(plan.steps),
    ...synthesisFindings(plan.steps),
  ];
  return findings.sort((a, b) => a.steps[0] - b.steps[0]);
}

/** The findings as the commander reads them in the tool's answer. */
export function describeFindings(findings: readonly PlanFinding[]): string {
  return findings.map((finding) => `- ${finding.message}`).join("\n");
}
