/**
 * The agent runtime's ports on the database: sessions live in Run.session so a
 * blocked run resumes after a restart; files are Artifact rows (latest version of a
 * name wins, older versions stay for the history).
 */
import type { ModelMessage } from "ai";
import type { Prisma, PrismaClient } from "../../generated/prisma/client.ts";
import type { ArtifactRecord, ArtifactStore, ConversationMemory, HistoryMessage, SessionStore } from "../../ports/agents.ts";
import { toStorableJson } from "../../core/text.ts";

type ArtifactRow = Prisma.ArtifactGetPayload<object> & { run?: { agent: { handle: string } | null } | null };

/**
 * Sessions are written in batches: every session saved within `delayMs` goes in one
 * statement. A run's session is read again only when the run blocked on a form (the
 * runtime waits for that write before reporting the block), so for every other run the
 * write is bookkeeping; batched, it costs one statement per window instead of one per
 * run, and it does not sit between a step's end and its dependent's start (on the
 * embedded database, which has one connection, a statement queued there delays every
 * other). A session not yet written is served from memory.
 */
export function createPrismaSessionStore(prisma: PrismaClient, options: { delayMs?: number } = {}): SessionStore {
  const delayMs = options.delayMs ?? 50;
  type Pending = { session: unknown; done: Promise<void>; settle: (error?: Error) => void };
  /** saved, not yet written (also while their batch is being written) */
  const unsaved = new Map<string, Pending>();
  let batch: string[] = [];
  let timer: ReturnType<typeof setTimeout> | null = null;
  /** batches are written one after another, so a later save of a run never loses to an earlier one */
  let writing: Promise<void> = Promise.resolve();

  const flush = () => {
    timer = null;
    const runIds = batch;
    batch = [];
    const entries = runIds.map((runId) => [runId, unsaved.get(runId)!] as const);
    writing = writing.then(async () => {
      const rows = entries.map(([id, pending]) => ({ id, session: pending.session }));
      let failure: Error | undefined = undefined;
      try {
        // the ids again as an array: by the JSON rows alone the planner reads every run
        // (see baton_write_units in prisma/migrations/*_database_functions)
        await prisma.$executeRaw`UPDATE "Run" r SET "session" = x."session"
          FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS x("id" text, "session" jsonb)
          WHERE r."id" = x."id" AND r."id" = ANY(${runIds}::text[])`;
      } catch (error) {
        failure = error instanceof Error ? error : new Error("could not save the sessions");
      }
      for (const [runId, pending] of entries) {
        if (unsaved.get(runId) === pending) unsaved.delete(runId);
        pending.settle(failure);
      }
    });
  };

  return {
    async load(runId) {
      const pending = unsaved.get(runId);
      if (pending) return JSON.parse(JSON.stringify(pending.session)) as ModelMessage[];
      const run = await prisma.run.findUnique({ where: { id: runId }, select: { session: true } });
      return (run?.session as ModelMessage[] | null | undefined) ?? null;
    },
    save(runId, messages) {
      // saved again before its batch was written: the earlier caller waits for this write
      const previous = unsaved.get(runId);
      let settle!: Pending["settle"];
      const done = new Promise<void>((resolve, reject) => {
        settle = (error) => {
          previous?.settle(error);
          if (error === undefined) resolve();
          else reject(error);
        };
      });
      // a JSON copy now: the caller may change its messages after this returns
      // model output and tool arguments and results: jsonb refuses U+0000 and lone surrogates
      unsaved.set(runId, { session: toStorableJson(JSON.parse(JSON.stringify(messages)) as unknown), done, settle });
      if (!batch.includes(runId)) batch.push(runId);
      timer ??= setTimeout(flush, delayMs);
      return done;
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

const HISTORY_SELECT = {
  id: true,
  authorKind: true,
  body: true,
  createdAt: true,
  authorUser: { select: { name: true } },
  authorAgent: { select: { handle: true, name: true } },
  authorAgentName: true,
  authorAgentHandle: true,
} as const;

type HistoryRow = Prisma.MessageGetPayload<{ select: typeof HISTORY_SELECT }>;

function toHistoryMessage(row: HistoryRow): HistoryMessage {
  const author: HistoryMessage["author"] =
    row.authorKind === "user"
      ? { kind: "user", name: row.authorUser?.name ?? "someone" }
      : row.authorKind === "agent" && row.authorAgent
        ? { kind: "agent", handle: row.authorAgent.handle, name: row.authorAgent.name }
        : row.authorKind === "agent" && row.authorAgentHandle !== null
          ? // an agent an admin deleted since: the name and handle it had
            { kind: "agent", handle: row.authorAgentHandle, name: row.authorAgentName ?? row.authorAgentHandle }
          : { kind: "system" };
  return { id: row.id, author, body: row.body, createdAt: row.createdAt.toISOString() };
}

/** an edit this long before a summary's messages were read may not have been committed yet when they were */
const CHANGED_WHILE_SUMMARISING_MARGIN_MS = 2_000;

/** Forms are answered in their own cards (and may hold secrets): they are not history. */
const HISTORY_KINDS = ["text", "dispatch", "result", "decision", "plan", "error"] as const;

export function createPrismaConversationMemory(prisma: PrismaClient): ConversationMemory {
  return {
    async recent({ conversationId, beforeMessageId, limit }) {
      const before = beforeMessageId
        ? await prisma.message.findFirst({ where: { id: beforeMessageId, conversationId }, select: { createdAt: true } })
        : null;
      const rows = await prisma.message.findMany({
        where: {
          conversationId,
          kind: { in: [...HISTORY_KINDS] },
          deletedAt: null, // what its author deleted is no longer shown to agents
          ...(before ? { createdAt: { lte: before.createdAt }, id: { not: beforeMessageId } } : {}),
        },
        orderBy: [{ createdAt: "desc" }, { id: "desc" }],
        take: limit + 1,
        select: HISTORY_SELECT,
      });
      return { messages: rows.slice(0, limit).reverse().map(toHistoryMessage), olderExist: rows.length > limit };
    },
    async range({ conversationId, afterCreatedAt, upToMessageId, limit }) {
      const upTo = await prisma.message.findFirst({ where: { id: upToMessageId, conversationId }, select: { createdAt: true } });
      if (!upTo) return [];
      const rows = await prisma.message.findMany({
        where: {
          conversationId,
          kind: { in: [...HISTORY_KINDS] },
          deletedAt: null,
          createdAt: { lte: upTo.createdAt, ...(afterCreatedAt ? { gt: new Date(afterCreatedAt) } : {}) },
        },
        orderBy: [{ createdAt: "asc" }, { id: "asc" }],
        take: limit,
        select: HISTORY_SELECT,
      });
      return rows.map(toHistoryMessage);
    },
    async loadSummary(conversationId) {
      const row = await prisma.conversation.findUnique({
        where: { id: conversationId },
        select: { historySummary: true, historySummaryUpToId: true, historySummaryUpToAt: true },
      });
      if (!row?.historySummary || !row.historySummaryUpToId || !row.historySummaryUpToAt) return null;
      return { text: row.historySummary, upToMessageId: row.historySummaryUpToId, upToCreatedAt: row.historySummaryUpToAt.toISOString() };
    },
    async saveSummary(conversationId, summary) {
      // only ever forward: two runs summarising at once keep the one that covers more
      const upTo = new Date(summary.upToCreatedAt);
      // and never over an edit or deletion made while it was being written (services/messages.ts
      // drops a stored summary then; this one was made from the old words). The margin covers an
      // edit whose transaction committed a moment after its editedAt was taken.
      const since = summary.readAt ? new Date(Date.parse(summary.readAt) - CHANGED_WHILE_SUMMARISING_MARGIN_MS) : null;
      await prisma.conversation.updateMany({
        where: {
          id: conversationId,
          OR: [{ historySummaryUpToAt: null }, { historySummaryUpToAt: { lt: upTo } }],
          ...(since
            ? { messages: { none: { createdAt: { lte: upTo }, OR: [{ editedAt: { gte: since } }, { deletedAt: { gte: since } }] } } }
            : {}),
        },
        data: {
          historySummary: summary.text,
          historySummaryUpToId: summary.upToMessageId,
          historySummaryUpToAt: upTo,
        },
      });
    },
  };
}
