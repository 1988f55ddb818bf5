/**
 * The commander's decision about a failed step, checked like any model output: the
 * shape (zod), the assignee a retry names, the steps an append adds. Pure: the
 * executor reads who is in the conversation and the plan, this module rules.
 */
import { z } from "zod";
import { PlanValidationError } from "./errors.ts";
import { rawAppendedStepsSchema } from "./plan-schema.ts";
import { validateAppendedSteps, type PlanLimits } from "./validate-plan.ts";
import { notices, type Worded } from "./notices.ts";
import { COMMANDER_ASSIGNEE, USER_ASSIGNEE, type CommanderDecision, type PlanState } from "./types.ts";

/** Every field a decision may carry, with what the model is told about it (the decide tool shows these). */
const decisionFields = {
  kind: z.enum(["retry", "skip", "abort", "append"]),
  input: z.string().max(20_000).optional().describe("retry: new input for the step"),
  assignee: z.string().optional().describe("retry: another agent for the step"),
  reason: z.string().max(2_000).optional(),
  steps: rawAppendedStepsSchema.min(1).describe("append: new steps, indexes after the existing ones"),
};

/**
 * The decide tool's input: one object, because providers want an object at the top
 * of a tool schema. checkDecision parses it again with rawDecisionSchema.
 */
export const decisionToolSchema = z.object({ ...decisionFields, steps: decisionFields.steps.optional() });

/**
 * The decision as the model writes it, per kind, built from the same fields. Appended
 * steps stay raw here: validateAppendedSteps names every problem with them at once.
 */
export const rawDecisionSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("retry"), input: decisionFields.input, assignee: decisionFields.assignee }),
  z.object({ kind: z.literal("skip"), reason: decisionFields.reason }),
  z.object({ kind: z.literal("abort"), reason: decisionFields.reason }),
  z.object({ kind: z.literal("append"), steps: z.array(z.unknown()).min(1) }),
]);

/** Whether checking `raw` needs the plan: only a well-formed append extends it. */
export function decisionNeedsPlan(raw: unknown): boolean {
  return rawDecisionSchema.safeParse(raw).data?.kind === "append";
}

/** A checked decision, and what to tell the conversation when the model's was refused. */
export interface CheckedDecision {
  decision: CommanderDecision;
  /** set when the decision was turned into an abort for a reason people should read */
  complaint: Worded | null;
}

/**
 * Rules on a raw decision: anything invalid becomes an abort (never a crash, never a
 * silent retry). `plan` is needed only for an append (its steps extend it).
 */
export function checkDecision(input: {
  raw: unknown;
  assignees: ReadonlySet<string>;
  plan: PlanState | null;
  limits: PlanLimits;
}): CheckedDecision {
  const parsed = rawDecisionSchema.safeParse(input.raw);
  if (!parsed.success) return { decision: { kind: "abort", reason: "the commander gave no valid decision" }, complaint: null };
  const decision = parsed.data;
  switch (decision.kind) {
    case "skip":
    case "abort":
      return { decision, complaint: null };
    case "retry": {
      if (decision.assignee === undefined) return { decision, complaint: null };
      const handle = decision.assignee.replace(/^@/, "");
      if (handle !== COMMANDER_ASSIGNEE && handle !== USER_ASSIGNEE && !input.assignees.has(handle)) {
        return {
          decision: { kind: "abort", reason: `retry named an unknown assignee @${handle}` },
          complaint: notices.retryNamedOutsider(handle),
        };
      }
      return { decision: { ...decision, assignee: handle }, complaint: null };
    }
    case "append": {
      if (!input.plan) throw new Error("checkDecision: an append needs the plan it extends");
      try {
        const steps = validateAppendedSteps({
          existing: input.plan,
          raw: decision.steps,
          assignees: input.assignees,
          limits: input.limits,
        });
        return { decision: { kind: "append", steps }, complaint: null };
      } catch (error) {
        const reason = error instanceof PlanValidationError ? error.message : String(error);
        return {
          decision: { kind: "abort", reason: `appended steps were invalid: ${reason}` },
          complaint: notices.appendRejected(reason),
        };
      }
    }
    default:
      return decision satisfies never;
  }
}
