/**
 * Workspace-wide settings an admin edits (the WorkspaceSetting table, one JSON value a
 * key). Each key has one reader and one writer here, with its value's schema: a row
 * that no longer parses reads as the key's default, never as a guess.
 */
import type { Prisma } from "../../generated/prisma/client.ts";
import { effortModelsSchema, type EffortModels } from "../../core/run-model.ts";

type Db = Pick<Prisma.TransactionClient, "workspaceSetting">;

/** The key of the admin's effort level → model mapping (core/run-model.ts). */
export const EFFORT_MODELS_KEY = "effortModels";

/** The effort mapping; none set (or unreadable): every level runs on the agent's own model. */
export async function readEffortModels(db: Db): Promise<EffortModels> {
  const row = await db.workspaceSetting.findUnique({ where: { key: EFFORT_MODELS_KEY }, select: { value: true } });
  const parsed = effortModelsSchema.safeParse(row?.value ?? {});
  return parsed.success ? parsed.data : {};
}

export async function writeEffortModels(db: Db, value: EffortModels): Promise<EffortModels> {
  const stored = effortModelsSchema.parse(value);
  await db.workspaceSetting.upsert({
    where: { key: EFFORT_MODELS_KEY },
    create: { key: EFFORT_MODELS_KEY, value: stored },
    update: { value: stored },
  });
  return stored;
}
