/**
 * For tests of the hot path's write on any database: a conversation with a plan, and the
 * optimistic write of one message against it, expecting a given plan version (and, if
 * given, more plans' versions and runs' statuses).
 */
import { randomUUID } from "node:crypto";
import type { PrismaClient } from "../../../generated/prisma/client.ts";
import { conversationLockKey } from "../plan-repository.ts";
import { sqlWrites, WriteBatch, type WriteExpectation } from "../write-batch.ts";
import { prismaSql } from "../../../db/sql-runner.ts";
import type { CommitNotice } from "../../../ports/executor.ts";

export async function optimisticMessageWrite(prisma: PrismaClient) {
  const conversation = await prisma.conversation.create({ data: { title: "t" } });
  const plan = await prisma.plan.create({ data: { conversationId: conversation.id, title: "p", maxParallel: 1, request: "r" } });
  const events = [{ type: "message-created" as const, payload: { message: {} as never } }];
  /**
   * writes one message and its event, if the plan is still at `version` and `more` holds
   * (else it raises the conflict); with `notice`, the statement announces the event's seq
   */
  const write = (version: number, more: Pick<WriteExpectation, "plans" | "runs"> = { plans: [], runs: [] }, notice?: CommitNotice) => {
    const batch = new WriteBatch();
    batch.add(
      sqlWrites.insertMessage({
        id: randomUUID(),
        conversationId: conversation.id,
        authorKind: "system",
        authorAgentId: null,
        kind: "text",
        body: "hello",
        notice: null,
        mentions: [],
        planId: plan.id,
        stepId: null,
        runId: null,
        formId: null,
        createdAt: new Date(),
      }),
    );
    return batch.flush(prismaSql(prisma), {
      conversationId: conversation.id,
      events,
      now: new Date(),
      expect: {
        lockKey: conversationLockKey(conversation.id),
        plans: [{ planId: plan.id, version }, ...more.plans],
        runs: more.runs,
      },
      notice,
    });
  };
  return { conversation, plan, write };
}
