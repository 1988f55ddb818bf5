/**
 * Admin: which model each effort level runs on (core/run-model.ts). A step the
 * commander marks light or deep runs on the model mapped here; an unmapped level (and
 * standard, always) runs on the step's agent's own model. Checks the role itself; each
 * change is in the audit log.
 */
import type { PrismaClient } from "../generated/prisma/client.ts";
import { modelProblem } from "../agents/model-check.ts";
import { assertAdmin, type Actor } from "../access/actor.ts";
import { recordAudit } from "../access/audit.ts";
import { effortModelsSchema, MAPPED_EFFORT_LEVELS, type EffortModels } from "../core/run-model.ts";
import { readEffortModels, writeEffortModels } from "../adapters/prisma/workspace-settings.ts";
import { invalidInput } from "../protocol/errors.ts";
import type { AgentModels } from "./admin-agents.ts";

export async function getEffortModels(prisma: PrismaClient, { actor }: { actor: Actor | null }): Promise<EffortModels> {
  assertAdmin(actor);
  return readEffortModels(prisma);
}

/**
 * Replaces the mapping. Each model must be one this server can run: a configured
 * provider's model id or the offline model (`offline`, `offline:<name>`).
 */
export async function setEffortModels(
  prisma: PrismaClient,
  { actor, input, models }: { actor: Actor | null; input: EffortModels } & Pick<AgentModels, "models">,
): Promise<EffortModels> {
  const admin = assertAdmin(actor);
  // the route checked the body already; a caller that did not gets the same answer, not a failed write
  const shape = effortModelsSchema.safeParse(input);
  if (!shape.success) {
    const [issue] = shape.error.issues;
    throw invalidInput(`${issue?.path.join(".") || "effortModels"}: ${issue?.message ?? "not a mapping of effort levels to models"}`);
  }
  for (const level of MAPPED_EFFORT_LEVELS) {
    const model = input[level];
    const problem = model === undefined ? null : modelProblem(models, model);
    if (problem) throw invalidInput(`${level}: ${problem}`);
  }
  return prisma.$transaction(async (tx) => {
    const stored = await writeEffortModels(tx, input);
    await recordAudit(tx, {
      actor: admin,
      action: "workspace.effort_models_changed",
      target: { kind: "workspace", id: "effortModels" },
      detail: { light: stored.light ?? null, deep: stored.deep ?? null },
    });
    return stored;
  });
}
