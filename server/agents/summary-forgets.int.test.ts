/**
 * Deleting means deleted, also for the conversation's stored summary (issue 42): once the
 * history outgrew the window, the older messages live on in Conversation.historySummary,
 * which agents are shown in every later run. A message edited or deleted after it was
 * summarised must not live on there, nor reach an agent's run through it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createExecutorFixture, type ExecutorFixture } from "../executor/testing/executor-fixture.ts";
import { waitFor } from "../testing/wait-for.ts";
import { extractiveSummarizer } from "./compaction.ts";
import { createAgentRunner } from "./run-agent.ts";
import { createModelRegistry } from "./model-registry.ts";
import { createPrismaArtifactStore, createPrismaConversationMemory, createPrismaSessionStore } from "../adapters/prisma/agent-stores.ts";
import { testPlanValidator } from "../executor/testing/offline-runtime.ts";
import { HISTORY_MAX_MESSAGES } from "./conversation-context.ts";

let fixture: ExecutorFixture;
/** runs while a summary is being made: what a person does meanwhile */
let duringSummary: (() => Promise<void>) | null = null;

async function start(kind: "embedded" | "postgres") {
  fixture = await createExecutorFixture({
    kind,
    // the summary is the first words of every turn, so what was said is in it word for word
    createRunner: (db) =>
      createAgentRunner({
        models: createModelRegistry({ env: {} }),
        artifacts: createPrismaArtifactStore(db.prisma),
        sessions: createPrismaSessionStore(db.prisma),
        memory: createPrismaConversationMemory(db.prisma),
        validatePlan: testPlanValidator(),
        summarize: async (input) => {
          const meanwhile = duringSummary;
          duringSummary = null;
          if (meanwhile) await meanwhile();
          return extractiveSummarizer(input);
        },
      }),
  });
  // only messages that address an agent wake one: the filler below starts no run
  await fixture.db.prisma.conversation.update({ where: { id: fixture.conversationId }, data: { commanderReplies: "when_addressed" } });
}

const say = (body: string, mentionHandles: string[] = []) =>
  fixture.app.messages.postMessage({
    conversationId: fixture.conversationId,
    author: { kind: "user", userId: fixture.userId },
    body,
    mentionHandles,
  });

const target = (messageId: string) => ({
  actor: { id: fixture.userId, role: "member" as const },
  conversationId: fixture.conversationId,
  messageId,
});

async function askWriter(question: string): Promise<string> {
  const asked = await say(`@writer ${question}`, ["writer"]);
  await fixture.executor.idle();
  const run = await waitFor(async () => {
    const row = await fixture.db.prisma.run.findFirstOrThrow({ where: { triggerMessageId: asked.id } });
    return row.session === null ? undefined : row;
  }, 10_000);
  return JSON.stringify(run.session);
}

const storedSummary = async () =>
  (await fixture.db.prisma.conversation.findUniqueOrThrow({ where: { id: fixture.conversationId } })).historySummary ?? "";

describe.each(["embedded", "postgres"] as const)("the stored conversation summary (%s)", (kind) => {
  beforeAll(() => start(kind), 60_000);
  afterAll(() => fixture?.close());

  it("forgets a summarised message once it is deleted, or edited", async () => {
    const deleted = await say("the vault code is VAULT-4471");
    const edited = await say("the launch codename is HERON-9");
    for (let i = 0; i < HISTORY_MAX_MESSAGES + 5; i++) await say(`filler message number ${i}`);

    const before = await askWriter("what did we say?");
    expect(await storedSummary()).toContain("VAULT-4471");
    expect(await storedSummary()).toContain("HERON-9");
    expect(before).toContain("VAULT-4471");

    await fixture.app.messages.deleteMessage(target(deleted.id));
    await fixture.app.messages.editMessage({ ...target(edited.id), body: "the launch codename is secret" });
    expect(await storedSummary()).not.toContain("VAULT-4471");
    expect(await storedSummary()).not.toContain("HERON-9");

    // the next run is given a summary made again from the messages as they are now
    const after = await askWriter("and now?");
    expect(after).not.toContain("VAULT-4471");
    expect(after).not.toContain("HERON-9");
    expect(after).toContain("the launch codename is secret");
    // made again from the messages as they are now, or (the edit was a moment ago) left for a later run to make
    expect(await storedSummary()).not.toContain("VAULT-4471");
    expect(await storedSummary()).not.toContain("HERON-9");
  }, 120_000);

  it("is not stored when a message it covers was deleted while it was being made", async () => {
    await fixture.db.prisma.conversation.update({
      where: { id: fixture.conversationId },
      data: { historySummary: null, historySummaryUpToId: null, historySummaryUpToAt: null },
    });
    const older = await fixture.db.prisma.message.findFirstOrThrow({
      where: { conversationId: fixture.conversationId, body: "filler message number 1" },
    });
    duringSummary = async () => {
      await fixture.app.messages.deleteMessage(target(older.id));
    };
    await askWriter("once more");
    expect(duringSummary).toBeNull();
    expect(await storedSummary()).not.toMatch(/filler message number 1\b/);
  }, 120_000);
});
