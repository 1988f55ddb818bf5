/** Admin: create and edit agents (handle, role, description, prompt, model, tools, skills, concurrency). */
import type { PrismaClient } from "../generated/prisma/client.ts";
import type { AdminAgent, AgentInput } from "../protocol/rest/admin.ts";
import { assertAdmin, type Actor } from "../access/actor.ts";
import type { ModelRegistry } from "../agents/model-registry.ts";
import { modelProblem } from "../agents/model-check.ts";
import { BatonError, conflict, invalidInput } from "../protocol/errors.ts";
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
  updatedAt: true,
} as const;

/** the wire shape (protocol/rest/admin.ts): dates as ISO text */
const toAdminAgent = (agent: { updatedAt: Date } & Omit<AdminAgent, "updatedAt">): AdminAgent => ({
  ...agent,
  updatedAt: agent.updatedAt.toISOString(),
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

/** Refuses a model this server cannot run (a bad id, a provider without its key, an unconfigured `cli:` agent), naming why. */
function assertModelUsable({ models, cliAgents = {} }: AgentModels, model: string): void {
  const problem = cliAgentName(model) !== null ? cliModelProblem(cliAgents, model) : modelProblem(models, model);
  if (problem) throw invalidInput(`model: ${problem}`);
}

export async function createAgent(
  prisma: PrismaClient,
  { actor, input, ...models }: { actor: Actor | null; input: AgentInput } & AgentModels,
): Promise<AdminAgent> {
  const admin = assertAdmin(actor);
  assertModelUsable(models, input.model);
  if (input.hedgeModel) assertModelUsable(models, input.hedgeModel);
  if (await prisma.agent.findUnique({ where: { handle: input.handle }, select: { id: true } })) {
    throw conflict(`@${input.handle} already exists.`);
  }
  const agent = await prisma.$transaction(async (tx) => {
    const created = await tx.agent.create({ data: { ...input, hedgeModel: input.hedgeModel || null }, select: agentSelect });
    await auditAgent(tx, admin, "agent.created", created);
    return created;
  });
  return toAdminAgent(agent);
}

/** An agent's creation or edit in the audit log, with the handle and model it now has. */
function auditAgent(
  tx: Parameters<typeof recordAudit>[0],
  admin: Parameters<typeof recordAudit>[1]["actor"],
  action: "agent.created" | "agent.updated",
  agent: { id: string; handle: string; model: string },
) {
  return recordAudit(tx, {
    actor: admin,
    action,
    target: { kind: "agent", id: agent.id },
    detail: { handle: agent.handle, model: agent.model },
  });
}

export async function updateAgent(
  prisma: PrismaClient,
  { actor, agentId, input, ...models }: { actor: Actor | null; agentId: string; input: AgentInput } & AgentModels,
): Promise<AdminAgent> {
  const admin = assertAdmin(actor);
  assertModelUsable(models, input.model);
  if (input.hedgeModel) assertModelUsable(models, input.hedgeModel);
  const clash = await prisma.agent.findUnique({ where: { handle: input.handle }, select: { id: true } });
  if (clash && clash.id !== agentId) throw conflict(`@${input.handle} already exists.`);
  const found = await prisma.agent.findUnique({ where: { id: agentId }, select: { id: true } });
  if (!found) throw new BatonError("not_found", "No such agent.");
  const agent = await prisma.$transaction(async (tx) => {
    const updated = await tx.agent.update({
      where: { id: agentId },
      // an edit that leaves the field out keeps the agent's alternate; an empty one removes it
      data: { ...input, hedgeModel: input.hedgeModel === undefined ? undefined : input.hedgeModel || null },
      select: agentSelect,
    });
    await auditAgent(tx, admin, "agent.updated", updated);
    return updated;
  });
  return toAdminAgent(agent);
}
