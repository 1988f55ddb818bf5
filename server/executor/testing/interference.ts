/**
 * Another writer between a unit's decision and its one statement: the executor's
 * `beforeOptimisticWrite` hook runs the interference set last, once. `bumpPlan` is the
 * usual one, a write to the plan the unit decided from, so the statement is refused.
 */
import type { PrismaClient } from "../../generated/prisma/client.ts";
import type { ExecutorDeps } from "../context.ts";

type Interference = (planId: string) => Promise<void>;

export function interference() {
  let next: Interference | null = null;
  const hooks: NonNullable<ExecutorDeps["hooks"]> = {
    beforeOptimisticWrite: async ({ planId }) => {
      const once = next;
      next = null;
      await once?.(planId);
    },
  };
  return {
    hooks,
    /** runs before the next optimistic write, once */
    set(interfere: Interference | null): void {
      next = interfere;
    },
    /** set and not yet run: no optimistic write came */
    get pending(): boolean {
      return next !== null;
    },
  };
}

/** As if another process wrote the plan meanwhile. */
export const bumpPlan = (prisma: PrismaClient) => async (planId: string) => {
  await prisma.plan.update({ where: { id: planId }, data: { version: { increment: 1 } } });
};
