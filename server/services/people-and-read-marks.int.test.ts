/**
 * The people picker finds the workspace's people by name or email for a conversation's
 * owners, marks who is already in and never offers the automation user; admins list
 * everyone; a reader's mark only moves forward and never past now.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../db/testing/test-database.ts";
import { listPeopleForAdmin, searchPeople } from "./people-search.ts";
import { lastReadAt, markRead } from "./read-marks.ts";
import { API_USER_EMAIL } from "../access/actor.ts";

const ana = { id: "ana", role: "member" as const };
const bo = { id: "bo", role: "member" as const };
let db: TestDatabase;
let conversationId: string;

beforeAll(async () => {
  db = await createTestDatabase({ kind: "embedded" });
  await db.prisma.user.createMany({
    data: [
      { id: "ana", name: "Ana Lima", email: "ana@example.test" },
      { id: "bo", name: "Bo Berg", email: "bo@example.test" },
      { id: "cy", name: "Cy Anand", email: "cy@other.test" },
      { id: "auto", name: "Automation", email: API_USER_EMAIL },
    ],
  });
  conversationId = (await db.prisma.conversation.create({ data: { title: "launch" } })).id;
  await db.prisma.membership.createMany({
    data: [
      { conversationId, userId: "ana", role: "owner" },
      { conversationId, userId: "bo", role: "member" },
    ],
  });
});

afterAll(async () => {
  await db?.close();
});

it("finds people by part of a name or email, whatever the case, and says who is already in", async () => {
  const byName = await searchPeople(db.prisma, { actor: ana, conversationId, query: "AN" });
  expect(byName.map((person) => [person.name, person.member])).toEqual([
    ["Ana Lima", true],
    ["Cy Anand", false],
  ]);
  expect((await searchPeople(db.prisma, { actor: ana, conversationId, query: "other.test" })).map((person) => person.id)).toEqual(["cy"]);
  expect(await searchPeople(db.prisma, { actor: ana, conversationId, query: "  " })).toEqual([]);
  expect(await searchPeople(db.prisma, { actor: ana, conversationId, query: "automation" })).toEqual([]);
});

it("is for the conversation's owners, who add people", async () => {
  await expect(searchPeople(db.prisma, { actor: bo, conversationId, query: "cy" })).rejects.toMatchObject({ code: "forbidden" });
});

it("lists everyone, the automation user too, by name, for admins only", async () => {
  const everyone = await listPeopleForAdmin(db.prisma, { actor: { id: "admin", role: "admin" } });
  expect(everyone.map((person) => person.id)).toEqual(["ana", "auto", "bo", "cy"]);
  expect(everyone[0]).toEqual({ id: "ana", name: "Ana Lima", email: "ana@example.test" });
  await expect(listPeopleForAdmin(db.prisma, { actor: ana })).rejects.toMatchObject({ code: "forbidden" });
  await expect(listPeopleForAdmin(db.prisma, { actor: null })).rejects.toMatchObject({ code: "unauthenticated" });
});

it("moves a reader's mark forward only, and never past now", async () => {
  expect(await lastReadAt(db.prisma, { actor: bo, conversationId })).toBeNull();
  const noon = new Date("2026-01-01T12:00:00Z");
  await markRead(db.prisma, { actor: bo, conversationId, upTo: noon });
  expect(await lastReadAt(db.prisma, { actor: bo, conversationId })).toEqual(noon);
  await markRead(db.prisma, { actor: bo, conversationId, upTo: new Date("2026-01-01T11:00:00Z") });
  expect(await lastReadAt(db.prisma, { actor: bo, conversationId })).toEqual(noon);
  const before = Date.now();
  const { lastReadAt: capped } = await markRead(db.prisma, { actor: bo, conversationId, upTo: new Date(Date.now() + 86_400_000) });
  expect(capped!.getTime()).toBeGreaterThanOrEqual(before);
  expect(capped!.getTime()).toBeLessThanOrEqual(Date.now());
  // someone else's mark is their own
  expect(await lastReadAt(db.prisma, { actor: ana, conversationId })).toBeNull();
});
