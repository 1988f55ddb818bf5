/**
 * Message search on both databases: English words ranked as full-text search ranks them,
 * and words inside Chinese, Japanese and Korean sentences (which English text search sees
 * as one token) found by substring — including two-character words, shorter than a trigram.
 * Only the searcher's conversations are searched.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../db/testing/test-database.ts";
import { searchMessages } from "./message-search.ts";

const searcher = { id: "searcher", role: "member" as const };
const outsider = { id: "outsider", role: "member" as const };

const BODIES = [
  "并行编排的核心是依赖图，而不是轮流等待。",
  "東京で来週の会議を開きます。",
  "다음 주 회의는 서울에서 열립니다.",
  "The planner runs independent steps in parallel.",
  "Parallel plans, parallel steps: parallel everywhere.",
  "Discount code 50%_off for the launch",
];

describe.each(["embedded", "postgres"] as const)("message search on %s", (kind) => {
  let db: TestDatabase;

  beforeAll(async () => {
    db = await createTestDatabase({ kind });
    for (const user of [searcher, outsider]) {
      await db.prisma.user.create({ data: { id: user.id, email: `${user.id}@example.com`, name: user.id } });
    }
    const shared = await db.prisma.conversation.create({ data: { title: "shared" } });
    const hidden = await db.prisma.conversation.create({ data: { title: "hidden" } });
    await db.prisma.membership.create({ data: { conversationId: shared.id, userId: searcher.id } });
    await db.prisma.membership.create({ data: { conversationId: hidden.id, userId: outsider.id } });
    for (const body of BODIES) {
      await db.prisma.message.create({ data: { conversationId: shared.id, authorKind: "user", authorUserId: searcher.id, body } });
    }
    await db.prisma.message.create({
      data: { conversationId: hidden.id, authorKind: "user", authorUserId: outsider.id, body: "秘密的编排计划" },
    });
  }, 180_000);

  afterAll(async () => {
    await db?.close();
  });

  const search = (query: string, actor = searcher) => searchMessages(db.prisma, { actor, query });
  const hitsOf = (result: Awaited<ReturnType<typeof search>>[number]) =>
    result.snippet.filter((segment) => segment.hit).map((segment) => segment.text);

  it.each([
    ["编排", BODIES[0]],
    ["依赖图", BODIES[0]],
    ["会議", BODIES[1]],
    ["来週の会議", BODIES[1]],
    ["회의", BODIES[2]],
    ["서울에서", BODIES[2]],
  ])("finds %s inside a sentence and marks it in the snippet", async (query, body) => {
    const results = await search(query);
    expect(results).toHaveLength(1);
    expect(body).toContain(results[0].snippet.map((segment) => segment.text).join(""));
    expect(hitsOf(results[0])).toEqual([query]);
  });

  it("does not search the conversations the searcher is not in", async () => {
    expect((await search("编排")).map((result) => result.conversationTitle)).toEqual(["shared"]);
    expect((await search("编排", outsider)).map((result) => result.conversationTitle)).toEqual(["hidden"]);
  });

  it("keeps English stemming and ranking: the message saying it three times first", async () => {
    const results = await search("parallels");
    expect(results.map((result) => result.messageId)).toHaveLength(2);
    expect(hitsOf(results[0])).toEqual(["Parallel", "parallel", "parallel"]);
    expect(hitsOf(results[1])).toEqual(["parallel"]);
  });

  it("reads exclusions, or, and takes LIKE wildcards literally", async () => {
    expect(await search("会議 -東京")).toEqual([]);
    expect(await search("会議 or 회의")).toHaveLength(2);
    expect(await search("0%_o")).toHaveLength(1);
    expect(await search("0%xo")).toEqual([]);
  });
});
