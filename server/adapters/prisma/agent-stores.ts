/**
 * The agent runtime's ports on the database: sessions live in Run.session so a
 * blocked run resumes after a restart; files are Artifact rows (latest version of a
 * name wins, older versions stay for the history).
 */
import type { ModelMessage } from "ai";
import type { Prisma, PrismaClient } from "../../generated/prisma/client.ts";
import type { ArtifactRecord, ArtifactStore, SessionStore } from "../../agents/ports.ts";

type ArtifactRow = Prisma.ArtifactGetPayload<object> & { run?: { agent: { handle: string } | null } | null };

export function createPrismaSessionStore(prisma: PrismaClient): SessionStore {
  return {
    async load(runId) {
      const run = await prisma.run.findUnique({ where: { id: runId }, select: { session: true } });
      return (run?.session as ModelMessage[] | null | undefined) ?? null;
    },
    async save(runId, messages) {
      await prisma.run.update({
        where: { id: runId },
        data: { session: JSON.parse(JSON.stringify(messages)) as Prisma.InputJsonValue },
      });
    },
  };
}

function toRecord(row: ArtifactRow, handles: Map<string, string>): ArtifactRecord {
  return {
    id: row.id,
    conversationId: row.conversationId,
    name: row.name,
    mediaType: row.mediaType,
    size: row.size,
    sha256: row.sha256,
    untrusted: row.untrusted,
    producer:
      row.producerKind === "agent" && row.runId
        ? {
            runId: row.runId,
            agentHandle: handles.get(row.producerAgentId ?? "") ?? "unknown",
            planId: row.planId ?? undefined,
            stepIndex: row.stepIndex ?? undefined,
          }
        : null,
    createdAt: row.createdAt.toISOString(),
  };
}

export function createPrismaArtifactStore(prisma: PrismaClient): ArtifactStore {
  const handlesOf = async (rows: ArtifactRow[]) => {
    const ids = [...new Set(rows.map((row) => row.producerAgentId).filter((id): id is string => Boolean(id)))];
    if (ids.length === 0) return new Map<string, string>();
    const agents = await prisma.agent.findMany({ where: { id: { in: ids } }, select: { id: true, handle: true } });
    return new Map(agents.map((agent) => [agent.id, agent.handle]));
  };
  const metadata = { omit: { content: true } } as const;
  return {
    async list({ conversationId }) {
      const rows = await prisma.artifact.findMany({ where: { conversationId }, orderBy: { createdAt: "desc" }, ...metadata });
      const latest = new Map<string, (typeof rows)[number]>();
      for (const row of rows) if (!latest.has(row.name)) latest.set(row.name, row);
      const unique = [...latest.values()].sort((a, b) => a.name.localeCompare(b.name)) as ArtifactRow[];
      const handles = await handlesOf(unique);
      return unique.map((row) => toRecord(row, handles));
    },
    async read({ conversationId, name }) {
      const row = await prisma.artifact.findFirst({ where: { conversationId, name }, orderBy: { createdAt: "desc" } });
      if (!row) return null;
      const handles = await handlesOf([row]);
      return { record: toRecord(row, handles), content: new Uint8Array(row.content) };
    },
    async write(input) {
      const agent = await prisma.agent.findUnique({ where: { handle: input.producer.agentHandle }, select: { id: true } });
      const row = await prisma.artifact.create({
        data: {
          conversationId: input.conversationId,
          name: input.name,
          mediaType: input.mediaType,
          size: input.content.byteLength,
          sha256: input.sha256,
          producerKind: "agent",
          producerAgentId: agent?.id,
          runId: input.producer.runId,
          planId: input.producer.planId,
          stepIndex: input.producer.stepIndex,
          untrusted: input.untrusted,
          content: Buffer.from(input.content),
        },
      });
      return toRecord(row, new Map(agent ? [[agent.id, input.producer.agentHandle]] : []));
    },
  };
}
