/**
 * Names of slot branches and folders. Pure: the executor and the tests agree on
 * them without touching git.
 */

/** Ids become one ref component of `[a-z0-9_-]`; anything else is refused, not rewritten. */
const ID = /^[A-Za-z0-9_-]{1,64}$/;

export class SlotNameError extends Error {
  readonly code = "invalid-slot-name";
  constructor(what: string, value: string) {
    super(`${what} "${value}" cannot name a slot: use 1-64 letters, digits, '_' or '-'`);
    this.name = "SlotNameError";
  }
}

function checkId(what: string, value: string): string {
  if (!ID.test(value)) throw new SlotNameError(what, value);
  return value;
}

/** The branch of one step's slot: `baton/<planId>-<stepId>`. */
export function slotBranch(input: { planId: string; stepId: string }): string {
  return `baton/${checkId("plan id", input.planId)}-${checkId("step id", input.stepId)}`;
}

/** The folder of one step's slot under the slots root (same name as the branch, flat). */
export function slotFolderName(input: { planId: string; stepId: string }): string {
  return `${checkId("plan id", input.planId)}-${checkId("step id", input.stepId)}`;
}

/** The branch that collects a plan's merged slot branches. */
export function resultBranch(planId: string): string {
  return `baton/${checkId("plan id", planId)}-result`;
}

/** Trailers that name the step in every commit the executor makes for it. */
export function commitTrailers(input: { planId: string; stepId: string; runId?: string; agentHandle?: string }): string[] {
  const trailers = [`Baton-Plan: ${input.planId}`, `Baton-Step: ${input.stepId}`];
  if (input.agentHandle) trailers.push(`Baton-Agent: @${input.agentHandle}`);
  if (input.runId) trailers.push(`Baton-Run: ${input.runId}`);
  return trailers;
}
