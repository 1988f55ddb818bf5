/**
 * Adapts server/core's validatePlan to the create_plan tool: the same rules the
 * executor applies when it stores the plan, checked early so that an invalid
 * plan goes back to the model with every issue instead of failing later. A valid
 * plan also gets the plan critic's reading (core/plan-critic.ts).
 */
import { PlanValidationError } from "../core/errors.ts";
import { critiquePlan } from "../core/plan-critic.ts";
import { validatePlan, type PlanLimits } from "../core/validate-plan.ts";
import type { PlanValidator } from "./tools.ts";

export function corePlanValidator(limits: PlanLimits): PlanValidator {
  return (raw, request) => {
    try {
      const plan = validatePlan({ raw, assignees: new Set(request.roster.map((member) => member.handle)), limits });
      return { ok: true, findings: critiquePlan(plan) };
    } catch (error) {
      if (error instanceof PlanValidationError) return { ok: false, message: error.message };
      throw error;
    }
  };
}
