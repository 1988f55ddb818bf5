/**
 * Conversation roles through the real route handlers and real better-auth sessions.
 * Each `it` reproduces one finding of issue 7 ("membership is flat") and the rule
 * that replaces it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  browserRequest,
  createAccountsFixture,
  signUpInvited,
  type AccountsFixture,
  type TestAccount,
} from "@/server/auth/testing/accounts.ts";
import { API_USER_EMAIL } from "@/server/access/actor.ts";
import * as members from "./route.ts";
import * as member from "./[userId]/route.ts";
import * as agents from "../agents/route.ts";
import * as agent from "../agents/[agentId]/route.ts";
import * as invitation from "../invitations/[invitationId]/route.ts";
import * as answer from "@/app/api/invitations/[invitationId]/route.ts";
import { acceptAll, createConversation as createAs, invite, params } from "@/app/api/testing/conversation-flows.ts";

let fixture: AccountsFixture;
let owner: TestAccount;
let bob: TestAccount;
let carol: TestAccount;

const createConversation = (as: TestAccount, title = "Roles") => createAs(as, title);

const view = async (as: TestAccount, conversationId: string) => {
  const response = await members.GET(
    browserRequest(`/api/conversations/${conversationId}/members`, { cookie: as.cookie }),
    params({ conversationId }),
  );
  return { status: response.status, body: response.status === 200 ? await response.json() : null };
};

const remove = (as: TestAccount, conversationId: string, userId: string) =>
  member.DELETE(
    browserRequest(`/api/conversations/${conversationId}/members/${userId}`, { cookie: as.cookie, method: "DELETE" }),
    params({ conversationId, userId }),
  );

const setRole = (as: TestAccount, conversationId: string, userId: string, role: string) =>
  member.PATCH(
    browserRequest(`/api/conversations/${conversationId}/members/${userId}`, { cookie: as.cookie, method: "PATCH", body: { role } }),
    params({ conversationId, userId }),
  );

beforeAll(async () => {
  fixture = await createAccountsFixture();
  owner = await signUpInvited(fixture.db.prisma, fixture.admin, "Olive");
  bob = await signUpInvited(fixture.db.prisma, fixture.admin, "Bob");
  carol = await signUpInvited(fixture.db.prisma, fixture.admin, "Carol");
});

afterAll(async () => {
  await fixture?.close();
});

describe("conversation roles", () => {
  it("the creator is the owner; a plain member cannot add anyone", async () => {
    const id = await createConversation(owner);
    expect((await view(owner, id)).body.you).toMatchObject({ role: "owner", canManage: true });
    expect((await invite(owner, id, bob.email)).status).toBe(202);
    await acceptAll(bob);
    expect((await view(bob, id)).body.you).toMatchObject({ role: "member", canManage: false });
    // finding: any member could add any user
    const byMember = await invite(bob, id, carol.email);
    expect(byMember.status).toBe(403);
    expect(await fixture.db.prisma.conversationInvitation.count({ where: { conversationId: id, email: carol.email } })).toBe(0);
    // an outsider learns nothing: the same 404 as a missing conversation
    expect((await invite(carol, id, carol.email)).status).toBe(404);
    expect((await view(carol, id)).status).toBe(404);
  });

  it("adding by email answers the same for a registered and an unknown address; the invitee accepts", async () => {
    const id = await createConversation(owner);
    const known = await invite(owner, id, carol.email.toUpperCase());
    const unknown = await invite(owner, id, "nobody-here@example.com");
    expect(known.status).toBe(unknown.status);
    const [knownBody, unknownBody] = [await known.json(), await unknown.json()];
    expect(Object.keys(knownBody).sort()).toEqual(Object.keys(unknownBody).sort());
    expect(knownBody.status).toBe(unknownBody.status);
    // both are pending: the owner's view does not tell them apart either
    const pending = (await view(owner, id)).body;
    expect(pending.invitations.map((entry: { email: string }) => entry.email).sort()).toEqual(
      [carol.email, "nobody-here@example.com"].sort(),
    );
    expect(pending.people.map((person: { id: string }) => person.id)).toEqual([owner.id]);
    // adding an existing member again answers the same, too
    const again = await invite(owner, id, owner.email);
    expect(again.status).toBe(202);
    expect(Object.keys(await again.json()).sort()).toEqual(Object.keys(knownBody).sort());

    const accepted = await acceptAll(carol);
    expect(accepted.map((entry) => entry.conversation.id)).toContain(id);
    expect((await view(carol, id)).body.you.role).toBe("member");
    // someone else's invitation cannot be answered
    const stranger = (await view(owner, id)).body.invitations[0];
    const stolen = await answer.POST(
      browserRequest(`/api/invitations/${stranger.id}`, { cookie: bob.cookie, body: { accept: true } }),
      params({ invitationId: stranger.id }),
    );
    expect(stolen.status).toBe(404);
    // the owner withdraws the unknown address's invitation
    const revoked = await invitation.DELETE(
      browserRequest(`/api/conversations/${id}/invitations/${stranger.id}`, { cookie: owner.cookie, method: "DELETE" }),
      params({ conversationId: id, invitationId: stranger.id }),
    );
    expect(revoked.status).toBe(204);
    expect((await view(owner, id)).body.invitations).toEqual([]);
  });

  it("adding the automation user is admin-only", async () => {
    const id = await createConversation(owner);
    const refused = await invite(owner, id, API_USER_EMAIL);
    expect(refused.status).toBe(403);
    expect(await fixture.db.prisma.membership.count({ where: { conversationId: id, userId: fixture.runtime.apiUserId } })).toBe(0);

    const adminsOwn = await createConversation(fixture.admin);
    expect((await invite(fixture.admin, adminsOwn, API_USER_EMAIL)).status).toBe(202);
    expect(await fixture.db.prisma.membership.count({ where: { conversationId: adminsOwn, userId: fixture.runtime.apiUserId } })).toBe(1);
  });

  it("owners remove people; members cannot; anyone can leave; the last owner hands over first", async () => {
    const id = await createConversation(owner);
    await invite(owner, id, bob.email);
    await invite(owner, id, carol.email);
    await acceptAll(bob);
    await acceptAll(carol);
    // finding: nobody could be removed, and the owner role was never checked
    expect((await remove(bob, id, carol.id)).status).toBe(403);
    expect((await setRole(bob, id, bob.id, "owner")).status).toBe(403);
    expect((await remove(owner, id, carol.id)).status).toBe(204);
    expect((await view(carol, id)).status).toBe(404);

    const lastOwnerLeaves = await remove(owner, id, owner.id);
    expect(lastOwnerLeaves.status).toBe(409);
    expect((await lastOwnerLeaves.json()).error.message).toMatch(/only owner/);
    expect((await setRole(owner, id, owner.id, "member")).status).toBe(409);

    expect((await setRole(owner, id, bob.id, "owner")).status).toBe(200);
    expect((await remove(owner, id, owner.id)).status).toBe(204);
    expect((await view(bob, id)).body.people.map((person: { id: string; role: string }) => [person.id, person.role])).toEqual([
      [bob.id, "owner"],
    ]);
    // the last person may leave
    expect((await remove(bob, id, bob.id)).status).toBe(204);
  });

  it("admins act as owners in conversations they belong to", async () => {
    const id = await createConversation(owner);
    await invite(owner, id, fixture.admin.email);
    await acceptAll(fixture.admin);
    expect((await view(fixture.admin, id)).body.you).toMatchObject({ role: "owner", canManage: true, isAdmin: true });
    await invite(fixture.admin, id, bob.email);
    await acceptAll(bob);
    expect((await remove(fixture.admin, id, bob.id)).status).toBe(204);
  });

  it("owners add and remove agents, never the commander", async () => {
    const id = await createConversation(owner);
    await invite(owner, id, bob.email);
    await acceptAll(bob);
    const addAgent = (as: TestAccount, handle: string) =>
      agents.POST(
        browserRequest(`/api/conversations/${id}/agents`, { cookie: as.cookie, body: { handle } }),
        params({ conversationId: id }),
      );
    const removeAgent = (as: TestAccount, agentId: string) =>
      agent.DELETE(
        browserRequest(`/api/conversations/${id}/agents/${agentId}`, { cookie: as.cookie, method: "DELETE" }),
        params({ conversationId: id, agentId }),
      );
    expect((await addAgent(bob, "writer")).status).toBe(403);
    const added = await addAgent(owner, "writer");
    expect(added.status).toBe(201);
    expect((await addAgent(owner, "writer")).status).toBe(409);
    const writerId = (await added.json()).agent.id;
    expect((await removeAgent(bob, writerId)).status).toBe(403);
    expect((await removeAgent(owner, writerId)).status).toBe(204);
    const commander = (await view(owner, id)).body.agents.find((entry: { role: string }) => entry.role === "commander");
    expect((await removeAgent(owner, commander.id)).status).toBe(409);
  });

  it("every change is in the audit log: who, what, target", async () => {
    const actions = await fixture.db.prisma.auditEvent.findMany({ where: { actorId: owner.id }, select: { action: true } });
    const kinds = new Set(actions.map((entry) => entry.action));
    for (const action of [
      "invitation.created",
      "invitation.revoked",
      "member.removed",
      "member.left",
      "member.role_changed",
      "agent.added",
      "agent.removed",
    ]) {
      expect(kinds, action).toContain(action);
    }
    expect(
      await fixture.db.prisma.auditEvent.count({ where: { actorId: carol.id, action: "invitation.accepted", targetId: carol.id } }),
    ).toBeGreaterThan(0);
  });
});
