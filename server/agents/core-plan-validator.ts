/**
 * Adapts server/core's validatePlan to the create_plan tool: the same rules the
 * executor applies when it stores the plan, checked early so that an invalid
 * plan goes back to the model with every issue instead of failing later.
 */
import { PlanValidationError } from "../core/errors.ts";
import { validatePlan, type PlanLimits } from "../core/validate-plan.ts";
import type { PlanValidator } from "./tools.ts";

export function corePlanValidator(limits: PlanLimits): PlanValidator {
  return (raw, request) => {
    try {
      validatePlan({ raw, assignees: new Set(request.roster.map((member) => member.handle)), limits });
      return { ok: true };
    } catch (error) {
      if (error instanceof PlanValidationError) return { ok: false, message: error.message };
      throw error;
    }
  };
}
