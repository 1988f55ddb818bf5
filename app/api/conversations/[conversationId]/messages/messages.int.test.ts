/**
 * Editing, deleting and searching messages through the real route handlers, real
 * better-auth sessions and a real executor, on PGlite and on PostgreSQL: only the author
 * changes a message, everyone sees it as a conversation event, and search never reaches
 * a conversation the searcher is not in.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { browserRequest, signUp, signUpInvited, type TestAccount } from "@/server/auth/testing/accounts.ts";
import { loadConfig } from "@/server/config/config.ts";
import { postgresAvailable } from "@/server/db/testing/test-database.ts";
import { createExecutorFixture, type ExecutorFixture } from "@/server/executor/testing/executor-fixture.ts";
import type { MessageDTO } from "@/server/protocol/dto.ts";
import { setRuntime } from "@/server/runtime.ts";
import { createPrismaConversationMemory } from "@/server/adapters/prisma/agent-stores.ts";
import { API_USER_EMAIL } from "@/server/access/actor.ts";
import type { SearchResultDTO } from "@/server/protocol/rest/search.ts";
import * as messages from "./route.ts";
import * as message from "./[messageId]/route.ts";
import * as search from "@/app/api/search/route.ts";
import * as conversationRoute from "../route.ts";
import type { Snapshot } from "@/server/protocol/rest/conversations.ts";
import { SNAPSHOT_MESSAGES } from "@/server/protocol/limits.ts";
import { listConversationEvents } from "@/server/adapters/prisma/event-log.ts";

const pgUp = await postgresAvailable();
if (!pgUp) console.warn("PostgreSQL at 127.0.0.1:5432 is unreachable: skipping the postgres message tests");

const params = <T extends Record<string, string>>(values: T) => ({ params: Promise.resolve(values) });

function suite(kind: "embedded" | "postgres") {
  let fixture: ExecutorFixture;
  let ann: TestAccount;
  let bob: TestAccount;
  let carol: TestAccount;
  /** Ann and Bob's conversation; Carol is not in it */
  let shared: string;
  /** Carol's own conversation */
  let carols: string;

  const post = async (as: TestAccount, conversationId: string, body: string, mentionHandles: string[] = []) => {
    const response = await messages.POST(
      browserRequest(`/api/conversations/${conversationId}/messages`, { cookie: as.cookie, body: { body, mentionHandles } }),
      params({ conversationId }),
    );
    expect(response.status).toBe(201);
    return ((await response.json()) as { message: MessageDTO }).message;
  };
  const edit = (as: TestAccount | null, conversationId: string, messageId: string, body: unknown) =>
    message.PATCH(
      browserRequest(`/api/conversations/${conversationId}/messages/${messageId}`, { cookie: as?.cookie, method: "PATCH", body }),
      params({ conversationId, messageId }),
    );
  const remove = (as: TestAccount, conversationId: string, messageId: string) =>
    message.DELETE(
      browserRequest(`/api/conversations/${conversationId}/messages/${messageId}`, { cookie: as.cookie, method: "DELETE" }),
      params({ conversationId, messageId }),
    );
  const find = async (as: TestAccount | null, query: string) => {
    const response = await search.GET(browserRequest(`/api/search?q=${encodeURIComponent(query)}`, { cookie: as?.cookie }));
    return {
      status: response.status,
      results: response.status === 200 ? ((await response.json()) as { results: SearchResultDTO[] }).results : [],
    };
  };

  beforeAll(async () => {
    fixture = await createExecutorFixture({ kind });
    const apiUser = await fixture.db.prisma.user.findUniqueOrThrow({ where: { email: API_USER_EMAIL } });
    setRuntime({
      config: loadConfig({}),
      prisma: fixture.db.prisma,
      sql: fixture.db.sql,
      app: fixture.app,
      apiUserId: apiUser.id,
    });
    ann = await signUp(fixture.db.prisma, { name: "Ann" });
    bob = await signUpInvited(fixture.db.prisma, { id: ann.id }, "Bob");
    carol = await signUpInvited(fixture.db.prisma, { id: ann.id }, "Carol");
    shared = (await fixture.services.createConversation({ title: "Launch", agentHandles: ["researcher"], userId: ann.id })).id;
    await fixture.db.prisma.membership.create({ data: { conversationId: shared, userId: bob.id, role: "member" } });
    carols = (await fixture.services.createConversation({ title: "Carol's", agentHandles: [], userId: carol.id })).id;
    // these people talk among themselves: a commander answering every message would quote
    // their words back (its reply is a message of its own, which edits and search rightly keep)
    await fixture.db.prisma.conversation.updateMany({
      where: { id: { in: [shared, carols] } },
      data: { commanderReplies: "when_addressed" },
    });
  }, 120_000);

  afterAll(async () => {
    await fixture?.executor.idle();
    await fixture?.close();
  });

  it("a file goes on its own, without text; nothing at all is refused, naming the body", async () => {
    const send = (body: Record<string, unknown>) =>
      messages.POST(
        browserRequest(`/api/conversations/${shared}/messages`, { cookie: ann.cookie, body }),
        params({ conversationId: shared }),
      );
    const file = await fixture.db.prisma.artifact.create({
      data: {
        conversationId: shared,
        name: "notes.txt",
        mediaType: "text/plain",
        size: 2,
        sha256: "0".repeat(64),
        producerKind: "user",
        producerUserId: ann.id,
        content: Buffer.from("hi"),
      },
    });
    const alone = await send({ body: "", attachmentIds: [file.id] });
    expect(alone.status).toBe(201);
    const sent = ((await alone.json()) as { message: MessageDTO }).message;
    expect(sent).toMatchObject({ body: "", attachments: [expect.objectContaining({ id: file.id, name: "notes.txt" })] });
    const empty = await send({ body: "  " });
    expect(empty.status).toBe(400);
    expect(JSON.stringify(await empty.json())).toContain("Write something first, or attach a file.");
  });

  it("only the author edits: another member gets 403, a non-member 404, nobody signed in 401", async () => {
    const sent = await post(ann, shared, "Ship on Friday");
    expect((await edit(bob, shared, sent.id, { body: "Ship never" })).status).toBe(403);
    expect((await edit(carol, shared, sent.id, { body: "Ship never" })).status).toBe(404);
    expect((await edit(null, shared, sent.id, { body: "Ship never" })).status).toBe(401);
    // a message of another conversation is not found through this one
    const elsewhere = await post(carol, carols, "mine");
    expect((await edit(carol, shared, elsewhere.id, { body: "x" })).status).toBe(404);
    expect((await edit(ann, shared, sent.id, { body: "   " })).status).toBe(400);
    expect((await fixture.db.prisma.message.findUniqueOrThrow({ where: { id: sent.id } })).body).toBe("Ship on Friday");

    const before = fixture.published.length;
    const response = await edit(ann, shared, sent.id, { body: "Ship on Monday\nafter the review" });
    expect(response.status).toBe(200);
    const edited = ((await response.json()) as { message: MessageDTO }).message;
    expect(edited.body).toBe("Ship on Monday\nafter the review");
    expect(edited.editedAt).not.toBeNull();
    const event = fixture.published.slice(before).find((e) => e.type === "message-edited");
    expect(event?.conversationId).toBe(shared);
    expect(event?.type === "message-edited" && event.payload.message.body).toBe("Ship on Monday\nafter the review");
  });

  it("a notice is the server's alone: a person's post or edit cannot set one, nor edit the server's", async () => {
    const notice = { key: "planSubmitted", values: { title: "<img src=x onerror=alert(1)>", steps: 1 } };
    const count = () => fixture.db.prisma.message.count({ where: { conversationId: shared } });
    const before = await count();
    // a body naming a key the route does not take is refused, naming it, and nothing is stored
    const response = await messages.POST(
      browserRequest(`/api/conversations/${shared}/messages`, { cookie: ann.cookie, body: { body: "mine", mentionHandles: [], notice } }),
      params({ conversationId: shared }),
    );
    expect(response.status).toBe(400);
    expect(JSON.stringify(await response.json())).toContain("notice");
    expect(await count()).toBe(before);
    const sent = await post(ann, shared, "mine");
    expect(sent.notice).toBeNull();
    const refused = await edit(ann, shared, sent.id, { body: "mine, edited", notice });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(await refused.json())).toContain("notice");
    const row = await fixture.db.prisma.message.findUniqueOrThrow({ where: { id: sent.id } });
    expect([row.body, row.notice]).toEqual(["mine", null]);

    const server = await fixture.db.prisma.message.create({
      data: { conversationId: shared, authorKind: "system", body: "Submitted plan **x**", notice },
    });
    expect((await edit(ann, shared, server.id, { body: "Submitted plan **y**" })).status).toBe(403);
    expect((await remove(ann, shared, server.id)).status).toBe(403);
    const kept = await fixture.db.prisma.message.findUniqueOrThrow({ where: { id: server.id } });
    expect([kept.body, kept.notice, kept.deletedAt]).toEqual(["Submitted plan **x**", notice, null]);
  });

  it("only the author deletes; a deletion leaves a tombstone, is an event, and cannot be edited", async () => {
    const sent = await post(ann, shared, "A secret plan");
    expect((await remove(bob, shared, sent.id)).status).toBe(403);
    expect((await remove(carol, shared, sent.id)).status).toBe(404);
    const before = fixture.published.length;
    const response = await remove(ann, shared, sent.id);
    expect(response.status).toBe(200);
    const tombstone = ((await response.json()) as { message: MessageDTO }).message;
    expect(tombstone).toMatchObject({ id: sent.id, body: "", mentions: [] });
    expect(tombstone.deletedAt).not.toBeNull();
    const row = await fixture.db.prisma.message.findUniqueOrThrow({ where: { id: sent.id } });
    expect(row.body).toBe("");
    expect(fixture.published.slice(before).some((e) => e.type === "message-deleted" && e.payload.message.id === sent.id)).toBe(true);
    expect((await edit(ann, shared, sent.id, { body: "back" })).status).toBe(409);
    // agents reading the conversation later no longer see it
    const history = await createPrismaConversationMemory(fixture.db.prisma).recent({ conversationId: shared, limit: 100 });
    expect(history.messages.some((entry) => entry.id === sent.id)).toBe(false);
    expect((await remove(ann, shared, sent.id)).status).toBe(200);
  });

  it("an edited or deleted message's old text is in no stored event and no replay (issue 42)", async () => {
    const edited = await post(ann, shared, "wombat-alpha original words");
    const deleted = await post(ann, shared, "wombat-beta private words");
    expect((await edit(ann, shared, edited.id, { body: "wombat-gamma after the edit" })).status).toBe(200);
    expect((await edit(ann, shared, deleted.id, { body: "wombat-delta edited then deleted" })).status).toBe(200);
    expect((await remove(ann, shared, deleted.id)).status).toBe(200);
    const rows = await fixture.db.prisma.$queryRaw<{ seq: number; payload: string }[]>`
      SELECT "seq", "payload"::text AS payload FROM "ConversationEvent" WHERE "conversationId" = ${shared}`;
    const stored = rows.map((row) => row.payload).join("\n");
    for (const gone of ["wombat-alpha", "wombat-beta", "wombat-delta"]) expect(stored).not.toContain(gone);
    expect(stored).toContain("wombat-gamma");
    // what a reconnecting socket and GET /api/v1/conversations/{id}/events replay, to anyone, from seq 0
    const replay = JSON.stringify(await listConversationEvents(fixture.db.prisma, { conversationId: shared, afterSeq: 0 }));
    for (const gone of ["wombat-alpha", "wombat-beta", "wombat-delta"]) expect(replay).not.toContain(gone);
    // the events themselves stay, in order: the creation of each is still replayed, as the message is now
    const created = (await listConversationEvents(fixture.db.prisma, { conversationId: shared, afterSeq: 0 })).filter(
      (event) => event.type === "message-created" && event.payload.message.id === deleted.id,
    );
    expect(created).toHaveLength(1);
    expect(created[0].type === "message-created" && created[0].payload.message).toMatchObject({ body: "" });
  });

  it("a run the message already started keeps the words it was started with", async () => {
    const sent = await post(ann, shared, "@researcher look into quokkas", ["researcher"]);
    const run = await fixture.db.prisma.run.findFirstOrThrow({ where: { triggerMessageId: sent.id } });
    expect((await edit(ann, shared, sent.id, { body: "@researcher look into wombats" })).status).toBe(200);
    expect((await remove(ann, shared, sent.id)).status).toBe(200);
    const after = await fixture.db.prisma.run.findUniqueOrThrow({ where: { id: run.id } });
    expect(after.input).toContain("quokkas");
    expect(await fixture.db.prisma.run.count({ where: { triggerMessageId: sent.id } })).toBe(1);
  });

  it("search finds words (stemmed) only in the searcher's conversations, highlighted as plain text", async () => {
    await post(ann, shared, "The zebra deployment goes out tonight. Use a <div> wrapper");
    await post(carol, carols, "Carol's private zebra deployments");
    const gone = await post(ann, shared, "zebra notes to delete");
    expect((await remove(ann, shared, gone.id)).status).toBe(200);

    for (const person of [ann, bob]) {
      const { status, results } = await find(person, "deploy zebra");
      expect(status).toBe(200);
      // (an agent's reply quoting the words is a match too, in the same conversation)
      expect(new Set(results.map((r) => r.conversationId))).toEqual(new Set([shared]));
      const anns = results.find((r) => r.author === "Ann");
      expect(anns?.conversationTitle).toBe("Launch");
      const hits = anns!.snippet.filter((segment) => segment.hit).map((segment) => segment.text.toLowerCase());
      expect(hits).toEqual(expect.arrayContaining(["zebra", "deployment"]));
      const joined = anns!.snippet.map((segment) => segment.text).join("");
      expect(joined.includes("\u0001") || joined.includes("\u0002")).toBe(false);
    }
    const carolFinds = await find(carol, "zebra");
    expect(carolFinds.results.length).toBeGreaterThan(0);
    expect(new Set(carolFinds.results.map((r) => r.conversationId))).toEqual(new Set([carols]));
    expect((await find(ann, "delete")).results).toEqual([]);
  });

  it("a long conversation opens with its newest messages and pages back through the rest without gaps or repeats", async () => {
    const long = (await fixture.services.createConversation({ title: "Months", agentHandles: [], userId: ann.id })).id;
    await fixture.db.prisma.membership.create({ data: { conversationId: long, userId: bob.id, role: "member" } });
    // 450 messages, three to each millisecond: a page's edge falls between messages made at the same moment
    const start = Date.parse("2026-01-01T00:00:00Z");
    await fixture.db.prisma.message.createMany({
      data: Array.from({ length: 450 }, (_, i) => ({
        conversationId: long,
        authorKind: "user" as const,
        authorUserId: ann.id,
        body: `note ${i}`,
        createdAt: new Date(start + Math.floor(i / 3)),
      })),
    });
    const stored = await fixture.db.prisma.message.findMany({
      where: { conversationId: long },
      orderBy: [{ createdAt: "asc" }, { id: "asc" }],
      select: { id: true },
    });

    const opened = await conversationRoute.GET(
      browserRequest(`/api/conversations/${long}`, { cookie: bob.cookie }),
      params({ conversationId: long }),
    );
    expect(opened.status).toBe(200);
    const snapshot = (await opened.json()) as Snapshot;
    expect(snapshot.messages.map((m) => m.id)).toEqual(stored.slice(-SNAPSHOT_MESSAGES).map((m) => m.id));
    expect(snapshot.hasEarlierMessages).toBe(true);

    const earlier = (as: TestAccount | null, query: string) =>
      messages.GET(
        browserRequest(`/api/conversations/${long}/messages?${query}`, { cookie: as?.cookie }),
        params({ conversationId: long }),
      );
    let shown = snapshot.messages.map((m) => m.id);
    const pages: number[] = [];
    for (let more = true; more;) {
      const response = await earlier(bob, `before=${shown[0]}&limit=${pages.length === 0 ? 150 : 200}`);
      expect(response.status).toBe(200);
      const page = (await response.json()) as { messages: MessageDTO[]; hasEarlier: boolean };
      pages.push(page.messages.length);
      shown = [...page.messages.map((m) => m.id), ...shown];
      more = page.hasEarlier;
    }
    expect(pages).toEqual([150, 100]);
    expect(shown).toEqual(stored.map((m) => m.id));

    // members only; a cursor from another conversation or a bad limit is named, not guessed at
    expect((await earlier(carol, `before=${shown[1]}`)).status).toBe(404);
    expect((await earlier(null, `before=${shown[1]}`)).status).toBe(401);
    const foreign = await post(carol, carols, "elsewhere");
    const wrongCursor = await earlier(bob, `before=${foreign.id}`);
    expect(wrongCursor.status).toBe(400);
    expect(JSON.stringify(await wrongCursor.json())).toContain("before");
    for (const query of [`before=${shown[1]}&limit=0`, `before=${shown[1]}&limit=201`, `before=${shown[1]}&limit=1e2`, "limit=5"]) {
      const response = await earlier(bob, query);
      expect(response.status, query).toBe(400);
      expect(JSON.stringify(await response.json()), query).toMatch(query === "limit=5" ? /before/ : /limit/);
    }
  });

  it("search refuses the anonymous and an empty query, and survives query syntax", async () => {
    expect((await find(null, "zebra")).status).toBe(401);
    expect((await find(ann, "   ")).status).toBe(400);
    expect((await find(ann, "x".repeat(201))).status).toBe(400);
    for (const query of ['"unclosed', "& | ! ( ) :*", "-", "or or", "zebra'; drop table"]) {
      expect((await find(ann, query)).status).toBe(200);
    }
  });
}

describe("messages on PGlite", () => suite("embedded"));
describe.skipIf(!pgUp)("messages on PostgreSQL", () => suite("postgres"));
