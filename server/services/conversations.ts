/**
 * Conversation reads and the few writes that are not plan execution (creating a
 * conversation, uploads). Route handlers and the API call these; they never touch
 * Prisma themselves. Every read of a conversation's content takes the acting user
 * and checks membership itself (server/access/actor.ts), whoever called it.
 */
import { createHash } from "node:crypto";
import type { PrismaClient } from "../generated/prisma/client.ts";
import { toPlanDTO, toRunDTO } from "../adapters/prisma/serializers.ts";
import { BatonError, invalidInput, notFound } from "../protocol/errors.ts";
import type { AttachmentDTO, PlanDTO, UsageDTO } from "../protocol/dto.ts";
import { MAX_MESSAGE_PAGE, MAX_UPLOAD_BYTES } from "../protocol/limits.ts";
import type { Snapshot } from "../protocol/rest/conversations.ts";
import { formsOf, messagesBefore, readSnapshot } from "./conversation-snapshot.ts";
import { computePlanMetrics, type PlanMetrics } from "./plan-metrics.ts";
import { assertMember, assertOwner, assertPlanMember, type Actor } from "../access/actor.ts";
import type { CommanderReplyMode } from "../core/addressing.ts";
import { truncateText } from "../core/text.ts";

const NO_USAGE: UsageDTO = { tokensIn: 0, tokensOut: 0, cost: 0, cacheReadTokens: 0, cacheWriteTokens: 0, estimated: false };

function addUsage(sum: UsageDTO, part: UsageDTO): UsageDTO {
  return {
    tokensIn: sum.tokensIn + part.tokensIn,
    tokensOut: sum.tokensOut + part.tokensOut,
    cost: sum.cost + part.cost,
    cacheReadTokens: (sum.cacheReadTokens ?? 0) + (part.cacheReadTokens ?? 0),
    cacheWriteTokens: (sum.cacheWriteTokens ?? 0) + (part.cacheWriteTokens ?? 0),
    estimated: sum.estimated === true || part.estimated === true,
  };
}

export function createConversationServices(prisma: PrismaClient) {
  return {
    /** Creates a conversation with the given agents; the workspace's commander always joins. */
    async createConversation(input: { title: string; agentHandles: string[]; userId?: string }) {
      const title = input.title.trim();
      if (!title) throw invalidInput("title: required");
      if (title.length > 200) throw invalidInput("title: longer than 200 characters");
      const handles = [...new Set(input.agentHandles.map((handle) => handle.replace(/^@/, "").toLowerCase()))];
      const agents = await prisma.agent.findMany({ where: { OR: [{ handle: { in: handles } }, { role: "commander" }] } });
      const missing = handles.filter((handle) => !agents.some((agent) => agent.handle === handle));
      if (missing.length > 0) throw invalidInput(`agentHandles: no agent @${missing.join(", @")}`);
      const commander = agents.filter((agent) => agent.role === "commander").sort((a, b) => +a.createdAt - +b.createdAt)[0];
      const chosen = agents.filter((agent) => handles.includes(agent.handle) || agent.id === commander?.id);
      const conversation = await prisma.conversation.create({
        data: {
          title,
          agents: { create: chosen.map((agent) => ({ agentId: agent.id })) },
          memberships: input.userId ? { create: { userId: input.userId, role: "owner" } } : undefined,
        },
      });
      return { id: conversation.id, title: conversation.title };
    },

    async isMember(input: { conversationId: string; userId: string }): Promise<boolean> {
      const membership = await prisma.membership.findUnique({
        where: { conversationId_userId: { conversationId: input.conversationId, userId: input.userId } },
        select: { id: true },
      });
      return membership !== null;
    },

    async listConversations(input: { userId: string }) {
      const rows = await prisma.conversation.findMany({
        where: { memberships: { some: { userId: input.userId } } },
        orderBy: { updatedAt: "desc" },
        select: { id: true, title: true, lastSeq: true, updatedAt: true, archivedAt: true, isDemo: true },
      });
      return rows.map((row) => ({ ...row, updatedAt: row.updatedAt.toISOString(), archivedAt: row.archivedAt?.toISOString() ?? null }));
    },

    async listAgents() {
      return prisma.agent.findMany({
        // a disabled agent is not offered for new conversations
        where: { disabledAt: null },
        orderBy: [{ role: "asc" }, { handle: "asc" }],
        select: { id: true, handle: true, name: true, role: true, model: true, concurrency: true },
      });
    },

    /** When the commander answers messages that address no agent (core/addressing.ts). */
    async setCommanderReplies(input: { actor: Actor | null; conversationId: string; mode: CommanderReplyMode }) {
      await assertOwner(prisma, input.actor, input.conversationId);
      await prisma.conversation.update({ where: { id: input.conversationId }, data: { commanderReplies: input.mode } });
      return { commanderReplies: input.mode };
    },

    /** Everything a client needs to draw a conversation, with the seq it is consistent with (conversation-snapshot.ts). */
    async getSnapshot(input: { actor: Actor | null; conversationId: string }): Promise<Snapshot> {
      await assertMember(prisma, input.actor, input.conversationId);
      return readSnapshot(prisma, input.conversationId);
    },

    /** A plan with its steps, for one the snapshot sent without them; a plan of another conversation is not found. */
    async getConversationPlan(input: { actor: Actor | null; conversationId: string; planId: string }): Promise<PlanDTO> {
      await assertMember(prisma, input.actor, input.conversationId);
      const plan = await prisma.plan.findFirst({
        where: { id: input.planId, conversationId: input.conversationId },
        include: { steps: { orderBy: { index: "asc" } } },
      });
      if (!plan) throw notFound("plan");
      return toPlanDTO(plan);
    },

    /** The messages just before `before` (a message of the conversation), oldest first, with the forms they show: a page back in a long conversation. */
    async getEarlierMessages(input: { actor: Actor | null; conversationId: string; before: string; limit?: number }) {
      await assertMember(prisma, input.actor, input.conversationId);
      const cursor = await prisma.message.findFirst({
        where: { id: input.before, conversationId: input.conversationId },
        select: { id: true, createdAt: true },
      });
      if (!cursor) throw invalidInput("before: no such message in this conversation");
      const page = await messagesBefore(prisma, {
        conversationId: input.conversationId,
        before: cursor,
        limit: input.limit ?? MAX_MESSAGE_PAGE,
      });
      return { ...page, forms: await formsOf(prisma, input.conversationId, page.messages, { open: false }) };
    },

    /** A plan with every step's runtime fields, token/cost usage per step and in total, and timing metrics. */
    async getPlan(input: { actor: Actor | null; planId: string }): Promise<PlanDTO & { metrics: PlanMetrics }> {
      await assertPlanMember(prisma, input.actor, input.planId);
      const plan = await prisma.plan.findUnique({ where: { id: input.planId }, include: { steps: true } });
      if (!plan) throw notFound("plan");
      const [usage, estimatedSteps, runs] = await Promise.all([
        prisma.run.groupBy({
          by: ["stepId"],
          where: { planId: plan.id },
          _sum: { tokensIn: true, tokensOut: true, cost: true, cacheReadTokens: true, cacheWriteTokens: true },
        }),
        prisma.run.findMany({ where: { planId: plan.id, usageEstimated: true }, select: { stepId: true }, distinct: ["stepId"] }),
        prisma.run.findMany({
          where: { planId: plan.id, kind: { in: ["step", "commander-step"] } },
          select: { startedAt: true, endedAt: true, step: { select: { index: true } } },
        }),
      ]);
      const estimated = new Set(estimatedSteps.map((run) => run.stepId));
      const toUsage = (row: (typeof usage)[number]): UsageDTO => ({
        tokensIn: row._sum.tokensIn ?? 0,
        tokensOut: row._sum.tokensOut ?? 0,
        cost: row._sum.cost ?? 0,
        cacheReadTokens: row._sum.cacheReadTokens ?? 0,
        cacheWriteTokens: row._sum.cacheWriteTokens ?? 0,
        estimated: estimated.has(row.stepId),
      });
      const byStep = new Map(usage.map((row) => [row.stepId, toUsage(row)]));
      const dto = toPlanDTO(plan);
      const total = usage.map(toUsage).reduce(addUsage, { ...NO_USAGE });
      const metrics = computePlanMetrics({
        createdAt: dto.createdAt,
        endedAt: dto.endedAt,
        steps: dto.steps,
        runs: runs.map((run) => ({
          stepIndex: run.step?.index ?? null,
          startedAt: run.startedAt?.toISOString() ?? null,
          endedAt: run.endedAt?.toISOString() ?? null,
        })),
      });
      return {
        ...dto,
        usage: total,
        metrics,
        steps: dto.steps.map((step) => ({ ...step, usage: byStep.get(step.id) ?? { ...NO_USAGE } })),
      };
    },

    /** A step's detail: input as rendered, the execution log, and every run with usage. */
    async getStepDetail(input: { actor: Actor | null; planId: string; stepIndex: number }) {
      await assertPlanMember(prisma, input.actor, input.planId);
      const step = await prisma.planStep.findUnique({
        where: { planId_index: { planId: input.planId, index: input.stepIndex } },
      });
      if (!step) throw notFound("step");
      const [log, runs] = await Promise.all([
        prisma.stepEvent.findMany({ where: { planId: input.planId, stepIndex: input.stepIndex }, orderBy: { id: "asc" } }),
        prisma.run.findMany({
          where: { stepId: step.id },
          orderBy: { createdAt: "asc" },
          include: { agent: { select: { handle: true } } },
        }),
      ]);
      return {
        step: toPlanDTO({ ...(await prisma.plan.findUniqueOrThrow({ where: { id: input.planId } })), steps: [step] }).steps[0],
        log: log.map((entry) => ({
          id: entry.id.toString(),
          at: entry.at.toISOString(),
          phase: entry.phase,
          message: entry.message,
          runId: entry.runId,
          data: entry.data,
        })),
        runs: runs.map((run) => toRunDTO(run, { agentHandle: run.agent?.handle ?? null, stepIndex: step.index })),
      };
    },

    async saveUpload(input: {
      actor: Actor | null;
      conversationId: string;
      name: string;
      mediaType: string;
      bytes: Uint8Array;
    }): Promise<AttachmentDTO> {
      const uploader = await assertMember(prisma, input.actor, input.conversationId);
      if (input.bytes.byteLength > MAX_UPLOAD_BYTES) {
        throw new BatonError("invalid_input", `file: larger than ${MAX_UPLOAD_BYTES / 1024 / 1024} MiB`);
      }
      const name = truncateText(input.name.replace(/[/\\\0]/g, "_"), 200) || "upload";
      const artifact = await prisma.artifact.create({
        data: {
          conversationId: input.conversationId,
          name,
          mediaType: input.mediaType || "application/octet-stream",
          size: input.bytes.byteLength,
          sha256: createHash("sha256").update(input.bytes).digest("hex"),
          producerKind: "user",
          producerUserId: uploader.id,
          untrusted: true,
          content: Buffer.from(input.bytes),
        },
      });
      return { id: artifact.id, name: artifact.name, mediaType: artifact.mediaType, size: artifact.size, untrusted: artifact.untrusted };
    },

    /** A file of the conversation named; one of another conversation is "not found", like a missing one. */
    async readArtifact(input: { actor: Actor | null; conversationId: string; artifactId: string }) {
      await assertMember(prisma, input.actor, input.conversationId);
      const artifact = await prisma.artifact.findUnique({ where: { id: input.artifactId } });
      if (!artifact || artifact.conversationId !== input.conversationId) throw notFound("file");
      return artifact;
    },
  };
}
