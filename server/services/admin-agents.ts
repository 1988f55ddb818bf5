/**
 * Admin: create and edit agents (handle, role, description, prompt, model, tools, skills,
 * concurrency), disable and enable them, delete them. Every command checks the admin role
 * itself, whatever route or page calls it. What disabling means for runs (queued ones
 * never start) is the engine's, asked by the application (services/application.ts).
 */
import type { PrismaClient } from "../generated/prisma/client.ts";
import type { AdminAgent, AgentInput } from "../protocol/rest/admin.ts";
import { assertAdmin, type Actor } from "../access/actor.ts";
import type { ModelRegistry } from "../agents/model-registry.ts";
import { modelProblem } from "../agents/model-check.ts";
import { BatonError, conflict, invalidInput, notFound } from "../protocol/errors.ts";
import { cliAgentName, type CliAgents } from "../workspace/cli-agent.ts";
import { cliModelProblem } from "../workspace/cli-check.ts";
import { recordAudit } from "../access/audit.ts";

const agentSelect = {
  id: true,
  handle: true,
  name: true,
  role: true,
  description: true,
  systemPrompt: true,
  model: true,
  allowedTools: true,
  skills: true,
  concurrency: true,
  hedgeModel: true,
  escalationModel: true,
  updatedAt: true,
  disabledAt: true,
} as const;

/** the wire shape (protocol/rest/admin.ts): dates as ISO text */
const toAdminAgent = (agent: { updatedAt: Date; disabledAt: Date | null } & Omit<AdminAgent, "updatedAt" | "disabledAt">): AdminAgent => ({
  ...agent,
  updatedAt: agent.updatedAt.toISOString(),
  disabledAt: agent.disabledAt?.toISOString() ?? null,
});

export async function listAgentsForAdmin(prisma: PrismaClient, { actor }: { actor: Actor | null }): Promise<AdminAgent[]> {
  assertAdmin(actor);
  const agents = await prisma.agent.findMany({ orderBy: [{ role: "asc" }, { handle: "asc" }], select: agentSelect });
  return agents.map(toAdminAgent);
}

/** The models an agent may be given: the providers' (by key) and the `cli:` agents BATON_CLI_AGENTS configures. */
export interface AgentModels {
  models: Pick<ModelRegistry, "resolve">;
  cliAgents?: CliAgents;
}

type ModelField = "model" | "hedgeModel" | "escalationModel";

/**
 * Refuses a model this server cannot run (a bad id, a provider without its key, an
 * unconfigured `cli:` agent), naming the field and why: the editor has three model fields.
 */
function assertModelUsable({ models, cliAgents = {} }: AgentModels, model: string, field: ModelField = "model"): void {
  const problem = cliAgentName(model) !== null ? cliModelProblem(cliAgents, model) : modelProblem(models, model);
  if (problem) throw invalidInput(`${field}: ${problem}`);
}

export async function createAgent(
  prisma: PrismaClient,
  { actor, input, ...models }: { actor: Actor | null; input: AgentInput } & AgentModels,
): Promise<AdminAgent> {
  const admin = assertAdmin(actor);
  assertModelUsable(models, input.model);
  if (input.hedgeModel) assertModelUsable(models, input.hedgeModel, "hedgeModel");
  if (input.escalationModel) assertModelUsable(models, input.escalationModel, "escalationModel");
  if (await prisma.agent.findUnique({ where: { handle: input.handle }, select: { id: true } })) {
    throw conflict(`@${input.handle} already exists.`);
  }
  const agent = await prisma.$transaction(async (tx) => {
    const created = await tx.agent.create({
      data: { ...input, hedgeModel: input.hedgeModel || null, escalationModel: input.escalationModel || null },
      select: agentSelect,
    });
    await auditAgent(tx, admin, "agent.created", created);
    return created;
  });
  return toAdminAgent(agent);
}

/** An agent's change in the audit log, with the handle and model it has (had, once deleted). */
function auditAgent(
  tx: Parameters<typeof recordAudit>[0],
  admin: Parameters<typeof recordAudit>[1]["actor"],
  action: "agent.created" | "agent.updated" | "agent.disabled" | "agent.enabled" | "agent.deleted",
  agent: { id: string; handle: string; model: string; name?: string },
) {
  return recordAudit(tx, {
    actor: admin,
    action,
    target: { kind: "agent", id: agent.id },
    detail: { handle: agent.handle, model: agent.model, ...(action === "agent.deleted" ? { name: agent.name } : {}) },
  });
}

export async function updateAgent(
  prisma: PrismaClient,
  { actor, agentId, input, ...models }: { actor: Actor | null; agentId: string; input: AgentInput } & AgentModels,
): Promise<AdminAgent> {
  const admin = assertAdmin(actor);
  assertModelUsable(models, input.model);
  if (input.hedgeModel) assertModelUsable(models, input.hedgeModel, "hedgeModel");
  if (input.escalationModel) assertModelUsable(models, input.escalationModel, "escalationModel");
  const clash = await prisma.agent.findUnique({ where: { handle: input.handle }, select: { id: true } });
  if (clash && clash.id !== agentId) throw conflict(`@${input.handle} already exists.`);
  const found = await prisma.agent.findUnique({ where: { id: agentId }, select: { id: true } });
  if (!found) throw new BatonError("not_found", "No such agent.");
  const agent = await prisma.$transaction(async (tx) => {
    const updated = await tx.agent.update({
      where: { id: agentId },
      // an edit that leaves the field out keeps the agent's alternate; an empty one removes it
      data: {
        ...input,
        hedgeModel: input.hedgeModel === undefined ? undefined : input.hedgeModel || null,
        escalationModel: input.escalationModel === undefined ? undefined : input.escalationModel || null,
      },
      select: agentSelect,
    });
    await auditAgent(tx, admin, "agent.updated", updated);
    return updated;
  });
  return toAdminAgent(agent);
}

/** The commander answers every conversation and runs every plan: without it nothing works. */
function assertNotCommander(agent: { handle: string; role: string }, verb: "disabled" | "deleted"): void {
  if (agent.role === "commander") {
    throw conflict(`@${agent.handle} is the commander and cannot be ${verb}: every conversation needs it to answer and to run plans.`);
  }
}

/**
 * Disables an agent (not offered, not mentionable, nothing new of it starts; its running
 * runs finish) or enables it again. Setting the state it already has changes nothing and
 * writes no audit row. Returns the agent and whether it changed.
 */
export async function setAgentEnabled(
  prisma: PrismaClient,
  { actor, agentId, enabled }: { actor: Actor | null; agentId: string; enabled: boolean },
): Promise<{ agent: AdminAgent; changed: boolean }> {
  const admin = assertAdmin(actor);
  return prisma.$transaction(async (tx) => {
    const found = await tx.agent.findUnique({ where: { id: agentId }, select: agentSelect });
    if (!found) throw notFound("agent");
    if (!enabled) assertNotCommander(found, "disabled");
    if ((found.disabledAt === null) === enabled) return { agent: toAdminAgent(found), changed: false };
    const updated = await tx.agent.update({
      where: { id: agentId },
      data: { disabledAt: enabled ? null : new Date() },
      select: agentSelect,
    });
    await auditAgent(tx, admin, enabled ? "agent.enabled" : "agent.disabled", updated);
    return { agent: toAdminAgent(updated), changed: true };
  });
}

/**
 * Deletes an agent: refused for the commander, and while runs of it are queued, running
 * or blocked on a form their step still waits for (disable it first, so nothing new
 * starts, and delete it once they ended).
 * Its old messages keep its name and handle (written onto them here: their link to the
 * agent becomes null); its runs stay in the plans' history without it; it leaves every
 * conversation. The agent's row is locked first: a run being queued for it right now
 * either committed before (and is counted) or waits, and then fails, after.
 */
export async function deleteAgent(
  prisma: PrismaClient,
  { actor, agentId }: { actor: Actor | null; agentId: string },
): Promise<{ id: string; handle: string }> {
  const admin = assertAdmin(actor);
  return prisma.$transaction(async (tx) => {
    const locked = await tx.$queryRaw<{ id: string }[]>`SELECT "id" FROM "Agent" WHERE "id" = ${agentId} FOR UPDATE`;
    const agent = locked.length === 0 ? null : await tx.agent.findUnique({ where: { id: agentId }, select: agentSelect });
    if (!agent) throw notFound("agent");
    assertNotCommander(agent, "deleted");
    // a run blocked on a form its step still waits for resumes when answered: live too
    const live = await tx.run.count({
      where: { agentId, OR: [{ status: { in: ["queued", "running"] } }, { status: "blocked", step: { status: "blocked" } }] },
    });
    if (live > 0) {
      throw conflict(
        `@${agent.handle} has ${live === 1 ? "1 live run" : `${live} live runs`} (queued, running or waiting for a form answer): ` +
          `disable it so nothing new starts, and delete it once ${live === 1 ? "it has" : "they have"} ended.`,
      );
    }
    await tx.message.updateMany({
      where: { authorAgentId: agentId },
      data: { authorAgentName: agent.name, authorAgentHandle: agent.handle },
    });
    await auditAgent(tx, admin, "agent.deleted", agent);
    await tx.agent.delete({ where: { id: agentId } });
    return { id: agent.id, handle: agent.handle };
  });
}
