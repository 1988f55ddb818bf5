/**
 * The core's unions are the one home of these concepts; the schema's enums must say
 * the same. Checked by the compiler: a value added on one side only fails typecheck.
 */
import type { AgentRole, PlanStatus, RunStatus, StepStatus } from "../../generated/prisma/enums.ts";
import type * as Core from "../../core/types.ts";

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

export const schemaEnumsMatchCore = {
  agentRole: true satisfies Same<AgentRole, Core.AgentRole>,
  planStatus: true satisfies Same<PlanStatus, Core.PlanStatus>,
  stepStatus: true satisfies Same<StepStatus, Core.StepStatus>,
  runStatus: true satisfies Same<RunStatus, Core.RunStatus>,
} as const;
