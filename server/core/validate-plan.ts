/**
 * Turns a raw plan proposal into a PlanSpec, or rejects it with every problem
 * found, each naming the step and field, so the commander can fix all of them in
 * one more tool call.
 */
import { IssueCollector, PlanValidationError, type PlanIssue } from "./errors.ts";
import {
  rawAppendedStepsSchema,
  rawPlanSchema,
  type RawBudget,
  type RawForEach,
  type RawStep,
  type RawWaitForEntry,
} from "./plan-schema.ts";
import { isRecord, shapeIssues } from "./plan-shape-issues.ts";
import { parseTemplateRefs } from "./templates.ts";
import { COMMANDER_ASSIGNEE, USER_ASSIGNEE, type Budget, type ForEach, type PlanSpec, type PlanState, type StepSpec } from "./types.ts";

export interface PlanLimits {
  maxSteps: number;
  maxInputChars: number;
  defaultMaxParallel: number;
  defaultMaxRetries: number;
}

interface ValidationContext {
  assignees: ReadonlySet<string>;
  limits: PlanLimits;
}

/**
 * Validate a plan proposed by the commander or an API client and apply defaults
 * (wait_for = [index-1], on_failure = ask_commander, max_retries and max_parallel
 * from `limits`, no quorum, no budget, no for_each, a for_each without max_parallel
 * bounded only by the plan's). `assignees` are the agent handles in the
 * conversation; `user` and `commander` are always allowed.
 * @throws PlanValidationError listing every issue found
 */
export function validatePlan({ raw, assignees, limits }: { raw: unknown; assignees: ReadonlySet<string>; limits: PlanLimits }): PlanSpec {
  assertPlanSize({ raw, limits });
  const parsed = rawPlanSchema.safeParse(raw);
  if (!parsed.success) {
    const rawSteps = isRecord(raw) ? raw.steps : undefined;
    throw new PlanValidationError(shapeIssues(parsed.error, rawSteps, ["steps"]));
  }
  const plan = parsed.data;
  const issues = new IssueCollector<PlanIssue>();
  if (plan.steps.length === 0) issues.push({ stepIndex: null, field: "steps", message: "the plan has no steps" });
  const steps = checkSteps({ steps: plan.steps, firstIndex: 1, existing: new Map(), context: { assignees, limits }, issues });
  if (issues.count > 0) throw new PlanValidationError(issues);
  return { title: plan.title, maxParallel: plan.max_parallel ?? limits.defaultMaxParallel, budget: toBudget(plan.budget), steps };
}

/**
 * Refuse a plan with more steps than the limit before anything else reads it: the
 * check costs one property read, however large the proposal, so a hostile plan is
 * refused in microseconds instead of being validated step by step. Then each step's
 * wait_for length (see assertWaitForLengths).
 * @throws PlanValidationError with the one issue
 */
export function assertPlanSize({ raw, limits }: { raw: unknown; limits: PlanLimits }): void {
  const steps = isRecord(raw) ? raw.steps : undefined;
  if (Array.isArray(steps) && steps.length > limits.maxSteps) {
    throw new PlanValidationError([
      { stepIndex: null, field: "steps", message: `the plan has ${steps.length} steps; the limit is ${limits.maxSteps}` },
    ]);
  }
  if (Array.isArray(steps)) assertWaitForLengths(steps, limits);
}

/**
 * A step can wait for at most every other step, so a wait_for longer than the step
 * limit is wrong whatever it names. Refusing it before the schema runs keeps a
 * megabyte of one repeated entry from being parsed and reported entry by entry.
 * Reads two properties of at most `maxSteps` steps.
 * @throws PlanValidationError naming the first such step
 */
function assertWaitForLengths(steps: readonly unknown[], limits: PlanLimits): void {
  for (const [position, step] of steps.entries()) {
    const waitFor = isRecord(step) ? step.wait_for : undefined;
    if (!Array.isArray(waitFor) || waitFor.length <= limits.maxSteps) continue;
    const declared = isRecord(step) ? step.index : undefined;
    const named = typeof declared === "number" && Number.isInteger(declared);
    throw new PlanValidationError([
      {
        stepIndex: named ? declared : null,
        field: "wait_for",
        message:
          `has ${waitFor.length} entries; a step can wait for at most ${limits.maxSteps} steps` +
          (named ? "" : ` (the step at position ${position + 1})`),
      },
    ]);
  }
}

/** snake_case budget → Budget, absent limits as null. */
function toBudget(raw: RawBudget | undefined): Budget {
  return { maxTokens: raw?.max_tokens ?? null, maxCost: raw?.max_cost ?? null };
}

/** snake_case for_each → ForEach; absent max_parallel as null (only the plan's limit applies). */
function toForEach(raw: RawForEach | undefined): ForEach | null {
  return raw === undefined ? null : { from: raw.from, field: raw.field, maxParallel: raw.max_parallel ?? null };
}

/** A wait_for entry as index + optional flag, whichever form it was written in. */
function waitForEntry(entry: RawWaitForEntry): { step: number; optional: boolean } {
  return typeof entry === "number" ? { step: entry, optional: false } : { step: entry.step, optional: entry.optional ?? false };
}

/**
 * Validate steps the commander appends to a running plan (its "append" decision).
 * Indexes continue from the plan's current highest index (for_each children
 * included); wait_for and templates may name any existing step or an earlier
 * appended one. The step limit counts proposed steps only: for_each children are
 * bounded by their own item limit, and counting them would refuse every append to
 * a plan that fanned out.
 * @throws PlanValidationError listing every issue found
 */
export function validateAppendedSteps({
  existing,
  raw,
  assignees,
  limits,
}: {
  existing: PlanState;
  raw: unknown;
  assignees: ReadonlySet<string>;
  limits: PlanLimits;
}): StepSpec[] {
  // the size first: nothing of an oversized proposal is read, so its cost is its length
  if (Array.isArray(raw)) {
    const total = existing.steps.filter((step) => step.parentIndex === null).length + raw.length;
    if (total > limits.maxSteps) {
      throw new PlanValidationError([
        { stepIndex: null, field: "steps", message: `the plan would have ${total} steps; the limit is ${limits.maxSteps}` },
      ]);
    }
  }
  if (Array.isArray(raw)) assertWaitForLengths(raw, limits);
  const parsed = rawAppendedStepsSchema.safeParse(raw);
  if (!parsed.success) throw new PlanValidationError(shapeIssues(parsed.error, raw, []));
  const issues = new IssueCollector<PlanIssue>();
  if (parsed.data.length === 0) issues.push({ stepIndex: null, field: "steps", message: "there are no steps to append" });
  const existingWaitFor = new Map(existing.steps.map((step) => [step.index, step.waitFor] as const));
  const firstIndex = Math.max(0, ...existing.steps.map((step) => step.index)) + 1;
  const steps = checkSteps({
    steps: parsed.data,
    firstIndex,
    existing: existingWaitFor,
    context: { assignees, limits },
    issues,
  });
  if (issues.count > 0) throw new PlanValidationError(issues);
  return steps;
}

function normalizeAssignee(assignee: string): string {
  // models often write the mention form; the handle is what the conversation knows
  return assignee.startsWith("@") ? assignee.slice(1) : assignee;
}

/** Relational checks shared by a new plan and appended steps. Pushes issues, returns specs with defaults. */
function checkSteps({
  steps,
  firstIndex,
  existing,
  context,
  issues,
}: {
  steps: RawStep[];
  firstIndex: number;
  existing: ReadonlyMap<number, readonly number[]>;
  context: ValidationContext;
  issues: IssueCollector<PlanIssue>;
}): StepSpec[] {
  const { assignees, limits } = context;
  const declared = new Set<number>(existing.keys());
  for (const step of steps) declared.add(step.index);

  const specs: StepSpec[] = [];
  const seen = new Set<number>(existing.keys());
  steps.forEach((step, position) => {
    const index = step.index;
    const report = (field: string, message: string) => issues.push({ stepIndex: index, field, message });
    const expected = firstIndex + position;
    if (seen.has(index)) {
      report("index", `index ${index} repeats (indexes must run ${firstIndex}, ${firstIndex + 1}, ... in order)`);
    } else if (index !== expected) {
      report("index", `expected index ${expected} here (indexes must run ${firstIndex}, ${firstIndex + 1}, ... in order, without gaps)`);
    }
    seen.add(index);

    const entries = step.wait_for?.map(waitForEntry);
    if (entries !== undefined) {
      const listed = new Set<number>();
      // optional entries are checked exactly like required ones: both are edges of the graph
      for (const { step: upstream } of entries) {
        if (listed.has(upstream)) report("wait_for", `names step ${upstream} more than once`);
        listed.add(upstream);
        if (upstream === index) report("wait_for", "names the step itself");
        else if (!declared.has(upstream)) report("wait_for", `names step ${upstream}, which does not exist`);
        else if (upstream > index) report("wait_for", `names step ${upstream}, which comes later (a step can only wait for earlier steps)`);
      }
    }

    const assignee = normalizeAssignee(step.assignee);
    if (assignee !== USER_ASSIGNEE && assignee !== COMMANDER_ASSIGNEE && !assignees.has(assignee)) {
      // the roster the commander validates against already holds its own handle: each name once
      const known = [...new Set([...assignees, USER_ASSIGNEE, COMMANDER_ASSIGNEE])].join(", ");
      report("assignee", `"${assignee}" is not in this conversation (available: ${known})`);
    }
    if (step.input.length > limits.maxInputChars) {
      report("input", `is ${step.input.length} characters long; the limit is ${limits.maxInputChars}`);
    }

    // the default names the previous step only if it exists, so a bad index is reported once
    const waitFor = [...new Set(entries?.map((entry) => entry.step) ?? (index > 1 && declared.has(index - 1) ? [index - 1] : []))];
    const optionalWaitFor = [...new Set(entries?.filter((entry) => entry.optional).map((entry) => entry.step) ?? [])];
    // k counts distinct dependencies: a repeated entry (already reported) must not widen the range
    if (step.quorum !== undefined && step.quorum > waitFor.length) {
      report(
        "quorum",
        `is ${step.quorum}, but the step waits for ${waitFor.length} ${waitFor.length === 1 ? "step" : "steps"} (quorum must be between 1 and the number of wait_for entries)`,
      );
    }
    if (step.for_each !== undefined) checkForEach(step.for_each, waitFor, step.quorum, report);
    specs.push({
      index,
      title: step.title,
      assignee,
      input: step.input,
      waitFor,
      optionalWaitFor,
      quorum: step.quorum ?? null,
      onFailure: step.on_failure ?? "ask_commander",
      maxRetries: step.max_retries ?? limits.defaultMaxRetries,
      budget: toBudget(step.budget),
      forEach: toForEach(step.for_each),
      ...(step.effort === undefined ? {} : { effort: step.effort }),
    });
  });

  const graph = new Map<number, readonly number[]>(existing);
  for (const spec of specs) if (!graph.has(spec.index)) graph.set(spec.index, spec.waitFor);
  const isUpstream = upstreamOracle(graph);
  for (const spec of specs) checkTemplate(spec, isUpstream, declared, issues);
  issues.pushAll(cycleIssues(graph));
  return specs;
}

/**
 * The list must exist when the step expands: `from` is one of its wait_for steps,
 * and no quorum, which could start the step (and release `from` as a straggler)
 * before the list is known. An optional `from` is allowed: if it ends without being
 * done, the list is empty.
 */
function checkForEach(
  forEach: RawForEach,
  waitFor: readonly number[],
  quorum: number | undefined,
  report: (field: string, message: string) => void,
): void {
  if (!waitFor.includes(forEach.from)) {
    report(
      "for_each",
      `"from" names step ${forEach.from}, which is not in wait_for (a for_each step maps over the output of a step it waits for; wait_for is [${waitFor.join(", ")}])`,
    );
  }
  if (quorum !== undefined) {
    report("for_each", "cannot be combined with quorum: the list must be complete before the items are known");
  }
}

function checkTemplate(
  spec: StepSpec,
  isUpstream: (step: number, candidate: number) => boolean,
  declared: ReadonlySet<number>,
  issues: IssueCollector<PlanIssue>,
): void {
  const refs = parseTemplateRefs(spec.input);
  const report = (message: string) => issues.push({ stepIndex: spec.index, field: "input", message });
  const itemVariables = spec.forEach === null ? "" : ", {{item}}, {{item_index}}";
  for (const text of new Set(refs.unknown)) {
    report(`unknown template variable {{${text}}} (use {{request}}, {{step_N.output_summary}} or {{step_N.output_files}}${itemVariables})`);
  }
  if (spec.forEach === null) {
    for (const kind of new Set(refs.variables.map((variable) => variable.kind))) {
      if (kind === "item" || kind === "item_index") report(`{{${kind}}} is only available in a for_each step`);
    }
  }
  const reported = new Set<string>();
  for (const variable of refs.variables) {
    if (variable.kind !== "step") continue;
    const name = `{{step_${variable.stepIndex}.${variable.field}}}`;
    if (reported.has(name)) continue;
    reported.add(name);
    if (variable.stepIndex === spec.index) report(`${name} reads the step's own output`);
    else if (!declared.has(variable.stepIndex)) report(`${name} names step ${variable.stepIndex}, which does not exist`);
    else if (!isUpstream(spec.index, variable.stepIndex)) {
      report(
        `${name} names step ${variable.stepIndex}, which is not upstream of step ${spec.index} (add it to wait_for, directly or through another step)`,
      );
    }
  }
}

/**
 * "Is `candidate` upstream of `step`?" for every template reference of a plan, in
 * linear time for the common case and without a per-step graph walk otherwise: a
 * direct dependency is a lookup; anything else reads ancestor sets built once, in
 * dependency order, as bitsets (each edge ORs one set of n/32 words, so with the step
 * limit checked first the whole plan costs O(edges × limit/32)). Steps on a cycle
 * (already reported) fall back to a walk.
 */
function upstreamOracle(graph: ReadonlyMap<number, readonly number[]>): (step: number, candidate: number) => boolean {
  let closure: { bit: Map<number, number>; sets: Map<number, Uint32Array> } | undefined;
  const build = () => {
    const order = dependencyOrder(graph);
    const bit = new Map(order.map((index, position) => [index, position] as const));
    const words = Math.ceil(order.length / 32);
    const sets = new Map<number, Uint32Array>();
    for (const index of order) {
      const set = new Uint32Array(words);
      for (const dependency of graph.get(index) ?? []) {
        const upstream = sets.get(dependency);
        if (upstream === undefined) continue; // missing or on a cycle
        for (let word = 0; word < words; word++) set[word] |= upstream[word];
        const position = bit.get(dependency)!;
        set[position >>> 5] |= 1 << (position & 31);
      }
      sets.set(index, set);
    }
    return { bit, sets };
  };
  return (step, candidate) => {
    const direct = graph.get(step);
    if (direct?.includes(candidate)) return true;
    closure ??= build();
    const set = closure.sets.get(step);
    const position = closure.bit.get(candidate);
    if (set === undefined || position === undefined) return ancestors(step, graph).has(candidate);
    return (set[position >>> 5] & (1 << (position & 31))) !== 0;
  };
}

/** Kahn's order, dependencies first; steps on a cycle are left out. */
function dependencyOrder(graph: ReadonlyMap<number, readonly number[]>): number[] {
  const waiting = new Map<number, number>();
  const dependents = new Map<number, number[]>();
  for (const [index, waitFor] of graph) {
    const present = [...new Set(waitFor)].filter((dependency) => graph.has(dependency));
    waiting.set(index, present.length);
    for (const dependency of present) {
      const list = dependents.get(dependency);
      if (list) list.push(index);
      else dependents.set(dependency, [index]);
    }
  }
  const order = [...graph.keys()].filter((index) => waiting.get(index) === 0);
  for (let next = 0; next < order.length; next++) {
    for (const dependent of dependents.get(order[next]) ?? []) {
      const left = waiting.get(dependent)! - 1;
      waiting.set(dependent, left);
      if (left === 0) order.push(dependent);
    }
  }
  return order;
}

/** Every step reachable through wait_for, ignoring references to missing steps. */
export function ancestors(index: number, graph: ReadonlyMap<number, readonly number[]>): Set<number> {
  const found = new Set<number>();
  const stack = [...(graph.get(index) ?? [])];
  while (stack.length > 0) {
    const next = stack.pop()!;
    if (found.has(next) || !graph.has(next)) continue;
    found.add(next);
    stack.push(...graph.get(next)!);
  }
  found.delete(index);
  return found;
}

/**
 * Explicit cycle detection. Index ordering already rules cycles out for a fresh
 * plan, but appended steps are checked against stored ones, and we would rather
 * reject than deadlock if that invariant is ever broken.
 */
function cycleIssues(graph: ReadonlyMap<number, readonly number[]>): PlanIssue[] {
  const issues: PlanIssue[] = [];
  const state = new Map<number, "visiting" | "done">();
  const reportedCycles = new Set<string>();
  const path: number[] = [];
  const visit = (node: number): void => {
    state.set(node, "visiting");
    path.push(node);
    for (const next of graph.get(node) ?? []) {
      // a self-wait is already reported as "names the step itself"
      if (!graph.has(next) || next === node) continue;
      const seen = state.get(next);
      if (seen === "visiting") {
        const cycle = path.slice(path.indexOf(next));
        const key = [...cycle].sort((a, b) => a - b).join(",");
        if (!reportedCycles.has(key)) {
          reportedCycles.add(key);
          const start = Math.min(...cycle);
          issues.push({
            stepIndex: start,
            field: "wait_for",
            message: `steps wait for each other in a cycle: ${[...cycle, next].join(" waits for ")}`,
          });
        }
      } else if (seen === undefined) {
        visit(next);
      }
    }
    path.pop();
    state.set(node, "done");
  };
  for (const node of [...graph.keys()].sort((a, b) => a - b)) if (!state.has(node)) visit(node);
  return issues;
}
