/**
 * Checked by the compiler only (imported by no one): the rows the hot path inserts
 * (tables.ts) write every column the schema requires, a whole-row insert names every
 * column, and the core's unions say the same as the schema's enums. A column or value
 * added on one side only fails typecheck.
 */
import type { Plan, PlanStep, Prisma } from "../../generated/prisma/client.ts";
import type { AgentRole, PlanStatus, RunStatus, StepStatus } from "../../generated/prisma/enums.ts";
import type * as Core from "../../core/types.ts";
import type { MessageRow, NewPlanRow, NewStepRow, RunRow, StepEventRow } from "./tables.ts";

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
/** Columns the create input requires (no default) that `Written` leaves out. */
type MissingRequired<Create, Written> = Exclude<
  { [K in keyof Create]-?: object extends Pick<Create, K> ? never : K }[keyof Create],
  Written
>;

export const schemaMatchesRows = {
  message: true satisfies Same<MissingRequired<Prisma.MessageUncheckedCreateInput, keyof MessageRow>, never>,
  run: true satisfies Same<MissingRequired<Prisma.RunUncheckedCreateInput, keyof RunRow>, never>,
  stepEvent: true satisfies Same<MissingRequired<Prisma.StepEventUncheckedCreateInput, keyof StepEventRow>, never>,
  newPlan: true satisfies Same<Exclude<keyof Plan, keyof NewPlanRow>, never>,
  newStep: true satisfies Same<Exclude<keyof PlanStep, keyof NewStepRow>, never>,
  agentRole: true satisfies Same<AgentRole, Core.AgentRole>,
  planStatus: true satisfies Same<PlanStatus, Core.PlanStatus>,
  stepStatus: true satisfies Same<StepStatus, Core.StepStatus>,
  runStatus: true satisfies Same<RunStatus, Core.RunStatus>,
} as const;
