/**
 * Every admin change is audited (agents created and edited, invite links revoked), the
 * audit log filters on the server by who, kind and date, and a revoked invite link lets
 * nobody in.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../db/testing/test-database.ts";
import { claimInvite, createInvite, isInviteUsable } from "./invites.ts";
import { createAgent, updateAgent } from "./admin-agents.ts";
import { inviteState, listInvitesForAdmin, revokeInvite } from "./admin-invites.ts";
import { listAuditEvents } from "../access/audit.ts";

const admin = { id: "ada", role: "admin" as const };
const member = { id: "bo", role: "member" as const };
const models = { models: { resolve: () => ({}) as never } };
let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase({ kind: "embedded" });
  await db.prisma.user.createMany({
    data: [
      { id: "ada", name: "Ada", email: "ada@example.test", role: "admin" },
      { id: "bo", name: "Bo", email: "bo@example.test" },
    ],
  });
});

afterAll(async () => {
  await db?.close();
});

const agentInput = {
  handle: "scribe",
  name: "Scribe",
  role: "sub_agent" as const,
  description: "",
  systemPrompt: "Write.",
  model: "offline:echo",
  allowedTools: [],
  skills: [],
  concurrency: 1,
};

it("audits an agent created and edited, with its handle and model", async () => {
  const agent = await createAgent(db.prisma, { actor: admin, input: agentInput, ...models });
  await updateAgent(db.prisma, { actor: admin, agentId: agent.id, input: { ...agentInput, model: "offline:other" }, ...models });
  const events = await listAuditEvents(db.prisma, { actor: admin, filter: { kind: "agent" } });
  expect(events.map((event) => [event.action, event.target.label, (event.detail as { model: string }).model])).toEqual([
    ["agent.updated", "@scribe", "offline:other"],
    ["agent.created", "@scribe", "offline:echo"],
  ]);
});

it("revokes an unused invite link for good, audited; it then lets nobody in", async () => {
  const invite = await createInvite(db.prisma, { actor: admin, role: "member" });
  await expect(revokeInvite(db.prisma, { actor: member, inviteId: invite.id })).rejects.toThrow();
  expect(await revokeInvite(db.prisma, { actor: admin, inviteId: invite.id })).toEqual({ id: invite.id, state: "revoked" });
  // twice is harmless, and audited once
  await revokeInvite(db.prisma, { actor: admin, inviteId: invite.id });
  expect(await isInviteUsable(db.prisma, invite.token)).toBe(false);
  expect(await claimInvite(db.prisma, invite.token)).toBeNull();
  const listed = await listInvitesForAdmin(db.prisma, { actor: admin });
  expect(listed.find((row) => row.id === invite.id)?.state).toBe("revoked");
  const revoked = await listAuditEvents(db.prisma, { actor: admin, filter: { kind: "invite" } });
  expect(revoked.filter((event) => event.action === "invite.revoked")).toHaveLength(1);
});

it("refuses to revoke a link already used, and names an unknown one", async () => {
  const invite = await createInvite(db.prisma, { actor: admin, role: "member" });
  expect(await claimInvite(db.prisma, invite.token)).toEqual({ role: "member" });
  await expect(revokeInvite(db.prisma, { actor: admin, inviteId: invite.id })).rejects.toMatchObject({ code: "conflict" });
  await expect(revokeInvite(db.prisma, { actor: admin, inviteId: "nope" })).rejects.toMatchObject({ code: "not_found" });
});

it("filters the audit log by who, kind and dates, on the server", async () => {
  await db.prisma.auditEvent.create({
    data: {
      actorId: "bo",
      actorKind: "user",
      action: "token.created",
      targetKind: "token",
      targetId: "t1",
      at: new Date("2025-03-10T12:00:00Z"),
    },
  });
  const bo = await listAuditEvents(db.prisma, { actor: admin, filter: { actorId: "bo" } });
  expect(bo.map((event) => event.action)).toEqual(["token.created"]);
  const march = await listAuditEvents(db.prisma, {
    actor: admin,
    filter: { from: new Date("2025-03-10T00:00:00Z"), to: new Date("2025-03-11T00:00:00Z") },
  });
  expect(march.map((event) => event.target.id)).toEqual(["t1"]);
  expect(await listAuditEvents(db.prisma, { actor: admin, filter: { actorId: "bo", kind: "agent" } })).toEqual([]);
  await expect(listAuditEvents(db.prisma, { actor: member })).rejects.toMatchObject({ code: "forbidden" });
});

it("says what became of a link", () => {
  const now = new Date("2026-01-02T00:00:00Z");
  const later = new Date("2026-01-03T00:00:00Z");
  expect(inviteState({ usedAt: null, revokedAt: null, expiresAt: later }, now)).toBe("open");
  expect(inviteState({ usedAt: null, revokedAt: null, expiresAt: now }, now)).toBe("expired");
  expect(inviteState({ usedAt: null, revokedAt: now, expiresAt: later }, now)).toBe("revoked");
  expect(inviteState({ usedAt: now, revokedAt: null, expiresAt: later }, now)).toBe("used");
});
