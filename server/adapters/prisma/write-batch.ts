/**
 * The hot path's writes, sent as ONE statement at the end of the transaction: a chain
 * of data-modifying CTEs that ends by appending the conversation's events and
 * returning their seq. A step's finish-and-dispatch then costs five round trips
 * (begin, lock, read, write, commit) instead of one per row.
 *
 * Rules that keep this correct: every statement in a batch sees the database as it
 * was before the batch (one snapshot), so a batch must never touch a row twice —
 * full-row updates are keyed and the last one wins — and nothing in the same
 * transaction may read what the batch has not yet written.
 */
import { Prisma } from "../../generated/prisma/client.ts";
import type { PendingEvent } from "./event-log.ts";

type Tx = Prisma.TransactionClient;

export class WriteBatch {
  private readonly keyed = new Map<string, Prisma.Sql>();
  private readonly appended: Prisma.Sql[] = [];

  /** A write that replaces any earlier write with the same key (full-row updates). */
  set(key: string, statement: Prisma.Sql): void {
    this.keyed.delete(key);
    this.keyed.set(key, statement);
  }

  add(statement: Prisma.Sql): void {
    this.appended.push(statement);
  }

  get isEmpty(): boolean {
    return this.keyed.size === 0 && this.appended.length === 0;
  }

  /**
   * Executes every write and appends the events in order. Returns the conversation's
   * new lastSeq (the events got lastSeq - n + 1 … lastSeq), or null without events.
   */
  async flush(tx: Tx, input: { conversationId: string; events: PendingEvent[]; now: Date }): Promise<number | null> {
    const statements = [...this.appended, ...this.keyed.values()];
    this.appended.length = 0;
    this.keyed.clear();
    const { events } = input;
    if (statements.length === 0 && events.length === 0) return null;
    const writes = statements.map((statement, i) => Prisma.sql`${Prisma.raw(`w${i}`)} AS (${statement} RETURNING 1)`);
    if (events.length === 0) {
      await tx.$executeRaw`WITH ${Prisma.join(writes, ", ")} SELECT 1`;
      return null;
    }
    const payload = JSON.stringify(events.map((event) => ({ type: event.type, payload: event.payload })));
    const tail = Prisma.sql`
      seq AS (
        UPDATE "Conversation" SET "lastSeq" = "lastSeq" + ${events.length}, "updatedAt" = ${input.now}::timestamp(3)
        WHERE "id" = ${input.conversationId} RETURNING "lastSeq"
      ),
      appended AS (
        INSERT INTO "ConversationEvent" ("conversationId", "seq", "type", "payload", "createdAt")
        SELECT ${input.conversationId}, seq."lastSeq" - ${events.length} + e.ord::int, e.value->>'type', e.value->'payload', ${input.now}::timestamp(3)
        FROM seq, jsonb_array_elements(${payload}::jsonb) WITH ORDINALITY AS e(value, ord)
        RETURNING 1
      )`;
    const chain = writes.length > 0 ? Prisma.sql`${Prisma.join(writes, ", ")}, ${tail}` : tail;
    const rows = await tx.$queryRaw<{ lastSeq: number }[]>`WITH ${chain} SELECT "lastSeq" FROM seq`;
    if (rows.length !== 1) throw new Error(`conversation ${input.conversationId} was not found while appending events`);
    return Number(rows[0]!.lastSeq);
  }
}

const json = (value: unknown) => (value === undefined || value === null ? null : JSON.stringify(value));

/** The SQL of the rows the executor writes on its hot path. */
export const sqlWrites = {
  insertMessage(row: {
    id: string;
    conversationId: string;
    authorKind: "user" | "agent" | "system";
    authorAgentId: string | null;
    kind: string;
    body: string;
    mentions: unknown[];
    planId: string | null;
    stepId: string | null;
    runId: string | null;
    formId: string | null;
    createdAt: Date;
  }): Prisma.Sql {
    return Prisma.sql`INSERT INTO "Message" ("id", "conversationId", "authorKind", "authorAgentId", "kind", "body", "mentions", "planId", "stepId", "runId", "formId", "createdAt")
      VALUES (${row.id}, ${row.conversationId}, ${row.authorKind}::"AuthorKind", ${row.authorAgentId}, ${row.kind}::"MessageKind", ${row.body},
              ${JSON.stringify(row.mentions)}::jsonb, ${row.planId}, ${row.stepId}, ${row.runId}, ${row.formId}, ${row.createdAt}::timestamp(3))`;
  },

  insertRun(row: {
    id: string;
    conversationId: string;
    agentId: string;
    planId: string | null;
    stepId: string | null;
    kind: string;
    attempt: number;
    input: string;
    model: string;
    triggerMessageId: string | null;
    resumesRunId: string | null;
    leaseOwner: string;
    leaseExpiresAt: Date;
    startedAt: Date;
  }): Prisma.Sql {
    return Prisma.sql`INSERT INTO "Run" ("id", "conversationId", "agentId", "planId", "stepId", "kind", "attempt", "status", "input", "model",
                                        "triggerMessageId", "resumesRunId", "leaseOwner", "leaseExpiresAt", "createdAt", "startedAt")
      VALUES (${row.id}, ${row.conversationId}, ${row.agentId}, ${row.planId}, ${row.stepId}, ${row.kind}, ${row.attempt}, 'running'::"RunStatus",
              ${row.input}, ${row.model}, ${row.triggerMessageId}, ${row.resumesRunId}, ${row.leaseOwner}, ${row.leaseExpiresAt}::timestamp(3),
              ${row.startedAt}::timestamp(3), ${row.startedAt}::timestamp(3))`;
  },

  /** Records how a run ended; a run that is no longer running is left as it is. */
  finishRun(row: {
    id: string;
    status: "succeeded" | "failed" | "blocked";
    endedAt: Date;
    error: string | null;
    tokensIn: number;
    tokensOut: number;
    cost: number;
  }): Prisma.Sql {
    return Prisma.sql`UPDATE "Run" SET "status" = ${row.status}::"RunStatus", "endedAt" = ${row.endedAt}::timestamp(3), "error" = ${row.error},
        "tokensIn" = ${row.tokensIn}, "tokensOut" = ${row.tokensOut}, "cost" = ${row.cost}, "leaseExpiresAt" = NULL
      WHERE "id" = ${row.id} AND "status" = 'running'::"RunStatus"`;
  },

  closeForm(row: { id: string }): Prisma.Sql {
    return Prisma.sql`UPDATE "Form" SET "status" = 'cancelled'::"FormStatus" WHERE "id" = ${row.id} AND "status" = 'open'::"FormStatus"`;
  },

  cancelRun(row: { id: string; endedAt: Date }): Prisma.Sql {
    return Prisma.sql`UPDATE "Run" SET "status" = 'cancelled'::"RunStatus", "endedAt" = ${row.endedAt}::timestamp(3), "error" = 'cancelled'
      WHERE "id" = ${row.id} AND "status" IN ('queued'::"RunStatus", 'running'::"RunStatus")`;
  },

  updatePlan(row: { id: string; version: number; updatedAt: Date; status?: string; endedAt?: Date | null }): Prisma.Sql {
    const status =
      row.status === undefined
        ? Prisma.empty
        : Prisma.sql`, "status" = ${row.status}::"PlanStatus", "endedAt" = ${row.endedAt ?? null}::timestamp(3)`;
    return Prisma.sql`UPDATE "Plan" SET "version" = ${row.version}, "updatedAt" = ${row.updatedAt}::timestamp(3)${status} WHERE "id" = ${row.id}`;
  },

  updateStep(row: {
    id: string;
    title: string;
    assignee: string;
    input: string;
    waitFor: number[];
    optionalWaitFor: number[];
    quorum: number | null;
    budgetTokens: number | null;
    budgetCost: number | null;
    forEachFrom: number | null;
    forEachField: string | null;
    forEachMaxParallel: number | null;
    onFailure: string;
    maxRetries: number;
    status: string;
    attempts: number;
    transientFailures: number;
    retryAt: Date | null;
    outputSummary: string | null;
    outputFiles: string[];
    outputUntrusted: boolean;
    failureReason: string | null;
    liveRunId: string | null;
    decisionPending: boolean;
    decisionCount: number;
    renderedInput: string | null;
    usageTokens: number;
    usageCost: number;
    expansion: unknown;
    parentIndex: number | null;
    startedAt: Date | null;
    endedAt: Date | null;
  }): Prisma.Sql {
    return Prisma.sql`UPDATE "PlanStep" SET "title" = ${row.title}, "assignee" = ${row.assignee}, "input" = ${row.input},
        "waitFor" = ${row.waitFor}::int[], "optionalWaitFor" = ${row.optionalWaitFor}::int[], "quorum" = ${row.quorum}::int,
        "budgetTokens" = ${row.budgetTokens}::int, "budgetCost" = ${row.budgetCost}::float8,
        "forEachFrom" = ${row.forEachFrom}::int, "forEachField" = ${row.forEachField}, "forEachMaxParallel" = ${row.forEachMaxParallel}::int,
        "expansion" = ${json(row.expansion)}::jsonb, "parentIndex" = ${row.parentIndex}::int,
        "onFailure" = ${row.onFailure}::"OnFailure", "maxRetries" = ${row.maxRetries},
        "status" = ${row.status}::"StepStatus", "attempts" = ${row.attempts}, "transientFailures" = ${row.transientFailures},
        "retryAt" = ${row.retryAt}::timestamp(3), "outputSummary" = ${row.outputSummary}, "outputFiles" = ${row.outputFiles}::text[],
        "outputUntrusted" = ${row.outputUntrusted}, "failureReason" = ${row.failureReason}, "liveRunId" = ${row.liveRunId},
        "decisionPending" = ${row.decisionPending}, "decisionCount" = ${row.decisionCount}, "renderedInput" = ${row.renderedInput},
        "usageTokens" = ${row.usageTokens}, "usageCost" = ${row.usageCost}::float8,
        "startedAt" = ${row.startedAt}::timestamp(3), "endedAt" = ${row.endedAt}::timestamp(3)
      WHERE "id" = ${row.id}`;
  },

  insertStepEvents(
    rows: { planId: string; stepIndex: number | null; runId: string | null; at: Date; phase: string; message: string; data: unknown }[],
  ): Prisma.Sql {
    const values = rows.map(
      (row) =>
        Prisma.sql`(${row.planId}, ${row.stepIndex}::int, ${row.runId}, ${row.at}::timestamp(3), ${row.phase}, ${row.message}, ${json(row.data)}::jsonb)`,
    );
    return Prisma.sql`INSERT INTO "StepEvent" ("planId", "stepIndex", "runId", "at", "phase", "message", "data") VALUES ${Prisma.join(values, ", ")}`;
  },
};
