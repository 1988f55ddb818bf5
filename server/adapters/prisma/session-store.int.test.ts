/**
 * The session store writes sessions in batches: each save resolves once its row holds
 * the session, a session saved but not yet written is served from memory, and a run
 * saved twice keeps the later session.
 */
import type { ModelMessage } from "ai";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../db/testing/test-database.ts";
import { createPrismaSessionStore } from "./agent-stores.ts";

let db: TestDatabase;
let conversationId: string;

beforeAll(async () => {
  db = await createTestDatabase({ kind: "embedded" });
  conversationId = (await db.prisma.conversation.create({ data: { title: "sessions" } })).id;
});

afterAll(async () => {
  await db?.close();
});

const said = (text: string): ModelMessage[] => [{ role: "user", content: text }];
const newRun = async () => (await db.prisma.run.create({ data: { conversationId, kind: "mention", input: "x" } })).id;
const stored = async (runId: string) =>
  (await db.prisma.run.findUniqueOrThrow({ where: { id: runId }, select: { session: true } })).session;

it("writes every session saved in one window, and serves a pending one from memory", async () => {
  // a window long enough that nothing is written before the loads below
  const store = createPrismaSessionStore(db.prisma, { delayMs: 200 });
  const [a, b] = [await newRun(), await newRun()];
  const savedA = store.save(a, said("first"));
  const savedB = store.save(b, said("second"));
  expect(await store.load(a)).toEqual(said("first"));
  await Promise.all([savedA, savedB]);
  expect(await stored(a)).toEqual(said("first"));
  expect(await stored(b)).toEqual(said("second"));
  expect(await createPrismaSessionStore(db.prisma).load(b)).toEqual(said("second"));
});

it("keeps the later of two saves of one run, and settles both", async () => {
  const store = createPrismaSessionStore(db.prisma, { delayMs: 5 });
  const run = await newRun();
  const first = store.save(run, said("draft"));
  const second = store.save(run, said("final"));
  await Promise.all([first, second]);
  expect(await stored(run)).toEqual(said("final"));
});

it("stores a session holding text the database could not store, repaired", async () => {
  const store = createPrismaSessionStore(db.prisma, { delayMs: 5 });
  const run = await newRun();
  // a NUL cannot be stored in jsonb: it is replaced, not a reason to lose the session
  await store.save(run, said("bad \u0000 byte"));
  expect(await stored(run)).toEqual(said("bad \ufffd byte"));
});

it("rejects the saves of a batch that could not be written", async () => {
  const closed = await createTestDatabase({ kind: "embedded" });
  const run = (
    await closed.prisma.run.create({
      data: { conversationId: (await closed.prisma.conversation.create({ data: { title: "s" } })).id, kind: "mention", input: "x" },
    })
  ).id;
  const store = createPrismaSessionStore(closed.prisma, { delayMs: 5 });
  await closed.close();
  // the database went away: the whole batch fails, and says so
  await expect(store.save(run, said("lost with the database"))).rejects.toThrow();
});
