/**
 * A database with a team's history in it: copies of the plans, steps and runs already
 * there (new ids, same contents), until `steps` steps exist. A benchmark on an empty
 * database cannot show a cost that grows with every plan ever run; this one can.
 * One INSERT … SELECT per table with the columns named, so it takes seconds, not minutes.
 */
import { randomBytes } from "node:crypto";
import type { PrismaClient } from "../server/generated/prisma/client.ts";

/** the columns that hold ids: each copy appends this call's tag and its number, so keys stay unique and rows stay linked */
const KEYS = new Set(["id", "planId", "stepId"]);

async function copyRows(prisma: PrismaClient, table: "Plan" | "PlanStep" | "Run", copies: number, tag: string, where = "") {
  const columns = (
    await prisma.$queryRawUnsafe<{ name: string }[]>(
      `SELECT column_name AS "name" FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1 ORDER BY ordinal_position`,
      table,
    )
  ).map((column) => column.name);
  const list = columns.map((column) => `"${column}"`).join(", ");
  const values = columns.map((column) => (KEYS.has(column) ? `x."${column}" || '-${tag}-' || g` : `x."${column}"`)).join(", ");
  await prisma.$executeRawUnsafe(
    `INSERT INTO "${table}" (${list}) SELECT ${values} FROM "${table}" x, generate_series(1, ${copies}) g ${where}`,
  );
}

/** Grows the plans, steps and runs already stored to about `steps` steps; returns how many there are. */
export async function growHistory(prisma: PrismaClient, steps: number): Promise<number> {
  const now = await prisma.planStep.count();
  const copies = Math.ceil(steps / Math.max(now, 1)) - 1;
  if (copies > 0) {
    const tag = randomBytes(4).toString("hex");
    await copyRows(prisma, "Plan", copies, tag);
    await copyRows(prisma, "PlanStep", copies, tag);
    // only runs of plans: a run's plan and step must be copies of the same number
    await copyRows(prisma, "Run", copies, tag, `WHERE x."planId" IS NOT NULL AND x."stepId" IS NOT NULL`);
  }
  return prisma.planStep.count();
}
