/**
 * Personal access tokens end to end: created in the app's route (shown once, stored
 * hashed), accepted by /api/v1 with scope checks, revoked and expired tokens refused,
 * and writes limited per token and per user with 429 + Retry-After.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  browserRequest,
  createAccountsFixture,
  signUpInvited,
  type AccountsFixture,
  type TestAccount,
} from "@/server/auth/testing/accounts.ts";
import { PERSON_TOKENS_WRITE_RATE, TOKEN_WRITE_RATE, USER_WRITE_RATE } from "@/server/auth/rate-limit.ts";
import * as tokens from "./route.ts";
import * as tokenById from "./[tokenId]/route.ts";
import { dispatchV1 } from "@/server/api-v1/serve-v1.ts";
import { listAuditEvents } from "@/server/access/audit.ts";

const BOOTSTRAP = "bootstrap-token-0123456789abcdef";
let fixture: AccountsFixture;
let member: TestAccount;

async function createToken(as: TestAccount, body: { name: string; scopes: string[]; expiresInDays: number }) {
  const response = await tokens.POST(browserRequest("/api/tokens", { cookie: as.cookie, body }));
  return { status: response.status, body: await response.json() };
}

const v1 = (path: string, token: string, body?: unknown) =>
  new Request(`http://baton.test${path}`, {
    method: body === undefined ? "GET" : "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

beforeAll(async () => {
  fixture = await createAccountsFixture({ BATON_API_TOKEN: BOOTSTRAP });
  member = await signUpInvited(fixture.db.prisma, fixture.admin, "Mia");
});

afterAll(async () => {
  await fixture?.close();
});

describe("personal access tokens", () => {
  it("shows the secret once and stores only its SHA-256", async () => {
    const { status, body } = await createToken(member, { name: "CI", scopes: ["read"], expiresInDays: 30 });
    expect(status).toBe(201);
    expect(body.token).toMatch(/^baton_pat_[A-Za-z0-9_-]{43}$/);
    const row = await fixture.db.prisma.apiToken.findUniqueOrThrow({ where: { id: body.record.id } });
    expect(row.tokenHash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(row)).not.toContain(body.token.slice(10));
    const listed = await (await tokens.GET(browserRequest("/api/tokens", { cookie: member.cookie }))).json();
    expect(JSON.stringify(listed)).not.toContain(body.token.slice(10));
    expect(listed.tokens.map((token: { id: string }) => token.id)).toContain(body.record.id);
  });

  it("acts as its user in /api/v1, within its scope", async () => {
    const read = (await createToken(member, { name: "read", scopes: ["read"], expiresInDays: 1 })).body.token;
    const write = (await createToken(member, { name: "write", scopes: ["write"], expiresInDays: 1 })).body.token;
    const refused = await dispatchV1(v1("/api/v1/conversations", read, { title: "nope" }));
    expect(refused.status).toBe(403);
    expect((await refused.json()).error.code).toBe("insufficient_scope");
    const created = await dispatchV1(v1("/api/v1/conversations", write, { title: "From my token" }));
    expect(created.status).toBe(201);
    const { id } = await created.json();
    // the conversation belongs to the token's user, not to the automation user
    const membership = await fixture.db.prisma.membership.findFirstOrThrow({ where: { conversationId: id } });
    expect(membership).toMatchObject({ userId: member.id, role: "owner" });
    const listed = await (await dispatchV1(v1("/api/v1/conversations", read))).json();
    expect(listed.conversations.map((c: { id: string }) => c.id)).toContain(id);
    // the bootstrap token still works, as the automation user, who is not in that conversation
    const bootstrap = await (await dispatchV1(v1("/api/v1/conversations", BOOTSTRAP))).json();
    expect(bootstrap.conversations.map((c: { id: string }) => c.id)).not.toContain(id);
  });

  it("admin scope: only admins get it, and it reads the audit log", async () => {
    expect((await createToken(member, { name: "sneaky", scopes: ["admin"], expiresInDays: 1 })).status).toBe(403);
    const adminToken = (await createToken(fixture.admin, { name: "siem", scopes: ["admin"], expiresInDays: 1 })).body.token;
    const writeToken = (await createToken(fixture.admin, { name: "w", scopes: ["write"], expiresInDays: 1 })).body.token;
    expect((await dispatchV1(v1("/api/v1/audit", writeToken))).status).toBe(403);
    expect((await dispatchV1(v1("/api/v1/audit", BOOTSTRAP))).status).toBe(403);
    const audit = await dispatchV1(v1("/api/v1/audit", adminToken));
    expect(audit.status).toBe(200);
    const events = (await audit.json()).events as { action: string; actor: { id: string } }[];
    expect(events.some((event) => event.action === "token.created" && event.actor.id === member.id)).toBe(true);
  });

  it("a revoked or expired token is refused at once", async () => {
    const { body } = await createToken(member, { name: "short", scopes: ["read"], expiresInDays: 1 });
    expect((await dispatchV1(v1("/api/v1/conversations", body.token))).status).toBe(200);
    const byOther = await tokenById.DELETE(
      browserRequest(`/api/tokens/${body.record.id}`, { cookie: fixture.admin.cookie, method: "DELETE" }),
      { params: Promise.resolve({ tokenId: body.record.id }) },
    );
    expect(byOther.status).toBe(200); // admins may revoke anyone's
    expect((await dispatchV1(v1("/api/v1/conversations", body.token))).status).toBe(401);
    const twice = await tokenById.DELETE(browserRequest(`/api/tokens/${body.record.id}`, { cookie: member.cookie, method: "DELETE" }), {
      params: Promise.resolve({ tokenId: body.record.id }),
    });
    expect(twice.status).toBe(409);
    const other = await signUpInvited(fixture.db.prisma, fixture.admin, "Otto");
    const mine = (await createToken(member, { name: "mine", scopes: ["read"], expiresInDays: 1 })).body;
    const stolen = await tokenById.DELETE(browserRequest(`/api/tokens/${mine.record.id}`, { cookie: other.cookie, method: "DELETE" }), {
      params: Promise.resolve({ tokenId: mine.record.id }),
    });
    expect(stolen.status).toBe(404);
    await fixture.db.prisma.apiToken.update({ where: { id: mine.record.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    expect((await dispatchV1(v1("/api/v1/conversations", mine.token))).status).toBe(401);
    expect(await fixture.db.prisma.auditEvent.count({ where: { action: "token.revoked", targetId: body.record.id } })).toBe(1);
  });

  it("reads a conversation only when the token's user is in it: the membership comes with the token's statement", async () => {
    const mine = (await createToken(member, { name: "reader", scopes: ["write"], expiresInDays: 1 })).body;
    const theirs = (await createToken(fixture.admin, { name: "theirs", scopes: ["write"], expiresInDays: 1 })).body.token;
    const create = async (token: string) =>
      (await (await dispatchV1(v1("/api/v1/conversations", token, { title: "scoped" }))).json()).id as string;
    const own = await create(mine.token);
    const other = await create(theirs);
    const events = (token: string, id: string) => dispatchV1(v1(`/api/v1/conversations/${id}/events`, token));
    expect((await events(mine.token, own)).status).toBe(200);
    // another's conversation, one that does not exist and an id no database holds all read as "not found"
    for (const id of [other, "no-such-conversation", "x".repeat(500), "nul\u0000id"]) {
      const response = await events(mine.token, id);
      expect(response.status).toBe(404);
      expect((await response.json()).error.code).toBe("not_found");
    }
    expect((await events(theirs, other)).status).toBe(200);
    // the automation user (bootstrap token) is in neither: its membership is read on its own
    expect((await events(BOOTSTRAP, own)).status).toBe(404);
    // a wrong token is 401 before any conversation is looked at
    expect((await events("baton_pat_nope", own)).status).toBe(401);
    // the last use is recorded (to the minute: at most one write a minute)
    const used = await fixture.db.prisma.apiToken.findUniqueOrThrow({ where: { id: mine.record.id } });
    expect(used.lastUsedAt!.getTime()).toBeGreaterThan(Date.now() - 60_000);
    await fixture.db.prisma.apiToken.update({ where: { id: mine.record.id }, data: { lastUsedAt: new Date(Date.now() - 61_000) } });
    expect((await events(mine.token, own)).status).toBe(200);
    const again = await fixture.db.prisma.apiToken.findUniqueOrThrow({ where: { id: mine.record.id } });
    expect(again.lastUsedAt!.getTime()).toBeGreaterThan(Date.now() - 10_000);
  });

  it("limits writes per token with 429 and Retry-After", async () => {
    const token = (await createToken(member, { name: "busy", scopes: ["write"], expiresInDays: 1 })).body.token;
    const statuses: number[] = [];
    for (let i = 0; i <= TOKEN_WRITE_RATE.max; i++)
      statuses.push((await dispatchV1(v1("/api/v1/conversations", token, { title: "" }))).status);
    expect(statuses.slice(0, TOKEN_WRITE_RATE.max).every((status) => status === 400)).toBe(true);
    const limited = await dispatchV1(v1("/api/v1/conversations", token, { title: "one more" }));
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    // reads are not writes
    expect((await dispatchV1(v1("/api/v1/conversations", token))).status).toBe(200);
  });

  it("limits the writes of all of one person's tokens together, so fifty tokens are not fifty budgets", async () => {
    const many = await signUpInvited(fixture.db.prisma, fixture.admin, "Many");
    const owned: string[] = [];
    for (let i = 0; i < 5; i++) owned.push((await createToken(many, { name: `t${i}`, scopes: ["write"], expiresInDays: 1 })).body.token);
    const statuses: number[] = [];
    // each token stays under its own budget; together they go past the person's
    for (let round = 0; round < TOKEN_WRITE_RATE.max - 1; round++) {
      for (const token of owned) statuses.push((await dispatchV1(v1("/api/v1/conversations", token, { title: "" }))).status);
    }
    const refused = statuses.filter((status) => status === 429).length;
    expect(statuses.filter((status) => status === 400).length).toBe(PERSON_TOKENS_WRITE_RATE.max);
    expect(refused).toBe(statuses.length - PERSON_TOKENS_WRITE_RATE.max);
  });

  it("limits writes per signed-in user across routes", async () => {
    const busy = await signUpInvited(fixture.db.prisma, fixture.admin, "Busy");
    for (let i = 0; i < USER_WRITE_RATE.max; i++) {
      expect((await tokens.POST(browserRequest("/api/tokens", { cookie: busy.cookie, body: { name: "" } }))).status).toBe(400);
    }
    const limited = await tokens.POST(
      browserRequest("/api/tokens", { cookie: busy.cookie, body: { name: "x", scopes: ["read"], expiresInDays: 1 } }),
    );
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await tokens.GET(browserRequest("/api/tokens", { cookie: busy.cookie }))).status).toBe(200);
  });

  it("the audit log's data function answers admins only, whoever calls it", async () => {
    await expect(listAuditEvents(fixture.db.prisma, { actor: null })).rejects.toMatchObject({ code: "forbidden" });
    await expect(listAuditEvents(fixture.db.prisma, { actor: member })).rejects.toMatchObject({ code: "forbidden" });
    const events = await listAuditEvents(fixture.db.prisma, { actor: fixture.admin });
    const used = events.find((event) => event.action === "invite.used" && event.actor?.id === member.id);
    expect(used).toBeDefined();
    expect(events.some((event) => event.action === "invite.created" && event.actor?.id === fixture.admin.id)).toBe(true);
    const revoked = events.find((event) => event.action === "token.revoked");
    expect(revoked).toMatchObject({ actor: { id: fixture.admin.id }, target: { kind: "token" } });
    expect(Date.parse(revoked!.at)).not.toBeNaN();
  });
});
