/**
 * The token check's one statement (verifyApiToken) on both databases: what it reads
 * through each driver's own query (arrays, booleans, times compared in SQL with the
 * stored UTC stamps) and the membership it answers for a route's conversation.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, postgresAvailable, type TestDatabase } from "../db/testing/test-database.ts";
import { createApiToken, verifyApiToken } from "./api-tokens.ts";

const pgUp = await postgresAvailable();
if (!pgUp) console.warn("PostgreSQL at 127.0.0.1:5432 is unreachable: skipping the postgres token tests");

function suite(kind: "embedded" | "postgres") {
  let db: TestDatabase;
  let userId: string;
  let mine: string;
  let theirs: string;

  beforeAll(async () => {
    db = await createTestDatabase({ kind });
    userId = (await db.prisma.user.create({ data: { id: "tok-user", name: "Tess", email: "tess@example.com", role: "admin" } })).id;
    const other = await db.prisma.user.create({ data: { id: "tok-other", name: "Otto", email: "otto@example.com" } });
    mine = (await db.prisma.conversation.create({ data: { title: "mine", memberships: { create: { userId } } } })).id;
    theirs = (await db.prisma.conversation.create({ data: { title: "theirs", memberships: { create: { userId: other.id } } } })).id;
  });

  afterAll(async () => {
    await db?.close();
  });

  const issue = async (scopes: ("read" | "write" | "admin")[] = ["read", "admin"]) =>
    createApiToken(db.prisma, { actor: { id: userId, role: "admin" }, name: "t", scopes, expiresInDays: 1 });

  it("reads the token, its user's role and, when asked, that user's membership of a conversation", async () => {
    const { token, record } = await issue();
    expect(await verifyApiToken(db, token)).toEqual({
      tokenId: record.id,
      userId,
      userRole: "admin",
      scopes: ["read", "admin"],
      member: null,
    });
    expect((await verifyApiToken(db, token, { conversationId: mine }))?.member).toBe(true);
    expect((await verifyApiToken(db, token, { conversationId: theirs }))?.member).toBe(false);
    expect((await verifyApiToken(db, token, { conversationId: "no-such-conversation" }))?.member).toBe(false);
    expect(await verifyApiToken(db, `${token}x`, { conversationId: mine })).toBeNull();
  });

  it("an admin token of someone no longer an admin keeps only its other scopes", async () => {
    const { token } = await issue();
    await db.prisma.user.update({ where: { id: userId }, data: { role: "member" } });
    try {
      expect(await verifyApiToken(db, token)).toMatchObject({ userRole: "member", scopes: ["read"] });
    } finally {
      await db.prisma.user.update({ where: { id: userId }, data: { role: "admin" } });
    }
  });

  it("compares expiry with the stored UTC stamp: live 30 s before it, refused 30 s after; revoked is refused", async () => {
    const { token, record } = await issue();
    const expiresAt = (await db.prisma.apiToken.findUniqueOrThrow({ where: { id: record.id } })).expiresAt;
    expect(await verifyApiToken(db, token, { now: new Date(expiresAt.getTime() - 30_000) })).not.toBeNull();
    expect(await verifyApiToken(db, token, { now: new Date(expiresAt.getTime() + 30_000) })).toBeNull();
    await db.prisma.apiToken.update({ where: { id: record.id }, data: { revokedAt: new Date() } });
    expect(await verifyApiToken(db, token)).toBeNull();
  });

  it("records the last use at most once a minute", async () => {
    const { token, record } = await issue();
    const lastUsed = async () => (await db.prisma.apiToken.findUniqueOrThrow({ where: { id: record.id } })).lastUsedAt?.getTime() ?? null;
    const start = Date.now();
    await verifyApiToken(db, token, { now: new Date(start) });
    expect(await lastUsed()).toBe(start);
    await verifyApiToken(db, token, { now: new Date(start + 59_000) });
    expect(await lastUsed()).toBe(start);
    await verifyApiToken(db, token, { now: new Date(start + 61_000) });
    expect(await lastUsed()).toBe(start + 61_000);
  });
}

describe("verifying a token on PGlite", () => suite("embedded"));
describe.skipIf(!pgUp)("verifying a token on PostgreSQL", () => suite("postgres"));
