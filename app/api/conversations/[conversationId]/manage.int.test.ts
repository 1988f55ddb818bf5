/**
 * Managing a conversation through the real route handlers and better-auth sessions:
 * rename, archive, delete (owners), leave (members), and who is told. Issue 11:
 * "Conversations cannot be renamed, archived, deleted … The demo conversation is shared
 * with every new user, unlabelled."
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  browserRequest,
  createAccountsFixture,
  signUpInvited,
  type AccountsFixture,
  type TestAccount,
} from "@/server/auth/testing/accounts.ts";
import { createConversationManageServices, type ConversationChangeNotifier } from "@/server/services/conversation-manage.ts";
import { DEMO_CONVERSATION_TITLE, seedWorkspace } from "@/server/services/seed.ts";
import * as conversation from "./route.ts";
import * as member from "./members/[userId]/route.ts";
import * as conversations from "@/app/api/conversations/route.ts";
import { acceptAll, createConversation as createAs, invite, params } from "@/app/api/testing/conversation-flows.ts";

let fixture: AccountsFixture;
let owner: TestAccount;
let bob: TestAccount;
let outsider: TestAccount;

const createConversation = (as: TestAccount, title = "Manage me") => createAs(as, title);

/** A conversation of the owner's that bob has joined by invitation. */
async function sharedConversation(title = "Shared") {
  const id = await createConversation(owner, title);
  expect((await invite(owner, id, bob.email)).status).toBe(202);
  await acceptAll(bob);
  return id;
}

const patch = (as: TestAccount, id: string, body: unknown) =>
  conversation.PATCH(
    browserRequest(`/api/conversations/${id}`, { cookie: as.cookie, method: "PATCH", body }),
    params({ conversationId: id }),
  );

const destroy = (as: TestAccount, id: string, body: unknown = { confirm: true }) =>
  conversation.DELETE(
    browserRequest(`/api/conversations/${id}`, { cookie: as.cookie, method: "DELETE", body }),
    params({ conversationId: id }),
  );

type Listed = { id: string; title: string; archivedAt: string | null; isDemo: boolean };
const list = async (as: TestAccount): Promise<Listed[]> =>
  ((await (await conversations.GET(browserRequest("/api/conversations", { cookie: as.cookie }))).json()) as { conversations: Listed[] })
    .conversations;

const row = (id: string) => fixture.db.prisma.conversation.findUnique({ where: { id } });

beforeAll(async () => {
  fixture = await createAccountsFixture();
  owner = await signUpInvited(fixture.db.prisma, fixture.admin, "Olive");
  bob = await signUpInvited(fixture.db.prisma, fixture.admin, "Bob");
  outsider = await signUpInvited(fixture.db.prisma, fixture.admin, "Otto");
});

afterAll(async () => {
  await fixture?.close();
});

describe("rename", () => {
  it("the owner renames; a member is refused, an outsider gets not-found; every member's list shows the new title", async () => {
    const id = await sharedConversation("Old name");
    const renamed = await patch(owner, id, { title: "  New name  " });
    expect(renamed.status).toBe(200);
    expect(await renamed.json()).toEqual({ title: "New name" });
    expect((await list(bob)).find((c) => c.id === id)?.title).toBe("New name");

    expect((await patch(bob, id, { title: "Bob's name" })).status).toBe(403);
    expect((await patch(outsider, id, { title: "Otto's name" })).status).toBe(404);
    expect((await row(id))?.title).toBe("New name");
    const audit = await fixture.db.prisma.auditEvent.findMany({ where: { conversationId: id, action: "conversation.renamed" } });
    expect(audit.map((entry) => entry.detail)).toEqual([{ from: "Old name", to: "New name" }]);
  });

  it("an empty, blank or too long title, an unknown field and an empty body are refused, naming what is wrong", async () => {
    const id = await createConversation(owner);
    for (const [body, names] of [
      [{ title: "   " }, "title"],
      [{ title: "x".repeat(121) }, "title"],
      // an override shown in every member's sidebar and in the "renamed" line would reorder them
      [{ title: "Budget \u202Efdp.exe" }, "title"],
      [{ title: 3 }, "title"],
      [{ archived: "yes" }, "archived"],
      [{ colour: "red" }, "colour"],
      [{}, "at least one"],
    ] as const) {
      const response = await patch(owner, id, body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(JSON.stringify(await response.json()), JSON.stringify(body)).toContain(names);
    }
    expect((await row(id))?.title).toBe("Manage me");
  });

  it("a new conversation's title with a bidirectional override is refused too", async () => {
    const response = await conversations.POST(
      browserRequest("/api/conversations", { cookie: owner.cookie, body: { title: "Q3 \u202Efdp.exe", agentHandles: [] } }),
    );
    expect(response.status).toBe(400);
    expect(JSON.stringify(await response.json())).toContain("title");
  });
});

describe("archive", () => {
  it("the owner archives and unarchives for everyone; a member is refused; an outsider gets not-found", async () => {
    const id = await sharedConversation("To archive");
    const archived = await patch(owner, id, { archived: true });
    expect(archived.status).toBe(200);
    const { archivedAt } = (await archived.json()) as { archivedAt: string };
    expect(Date.parse(archivedAt)).not.toBeNaN();
    expect((await list(bob)).find((c) => c.id === id)?.archivedAt).toBe(archivedAt);
    // archived is still readable and listed (under "Archived"), not gone
    expect(
      (await conversation.GET(browserRequest(`/api/conversations/${id}`, { cookie: bob.cookie }), params({ conversationId: id }))).status,
    ).toBe(200);

    expect((await patch(bob, id, { archived: false })).status).toBe(403);
    expect((await patch(outsider, id, { archived: false })).status).toBe(404);
    expect((await row(id))?.archivedAt?.toISOString()).toBe(archivedAt);

    const back = await patch(owner, id, { archived: false });
    expect(await back.json()).toEqual({ archivedAt: null });
    expect((await list(owner)).find((c) => c.id === id)?.archivedAt).toBeNull();
  });
});

describe("delete", () => {
  it("needs the owner and a confirming body; a member and an outsider are refused and nothing is deleted", async () => {
    const id = await sharedConversation("To delete");
    expect((await destroy(bob, id)).status).toBe(403);
    expect((await destroy(outsider, id)).status).toBe(404);
    const unconfirmed = await destroy(owner, id, {});
    expect(unconfirmed.status).toBe(400);
    expect(JSON.stringify(await unconfirmed.json())).toContain("confirm");
    expect(await row(id)).not.toBeNull();

    expect((await destroy(owner, id)).status).toBe(204);
    expect(await row(id)).toBeNull();
    expect(await fixture.db.prisma.membership.count({ where: { conversationId: id } })).toBe(0);
    expect((await list(bob)).some((c) => c.id === id)).toBe(false);
    // gone: the same not-found for its former members as for anyone
    expect((await destroy(owner, id)).status).toBe(404);
    const audit = await fixture.db.prisma.auditEvent.findMany({ where: { conversationId: id, action: "conversation.deleted" } });
    expect(audit.map((entry) => [entry.actorId, entry.detail])).toEqual([[owner.id, { title: "To delete" }]]);
  });

  it("is refused while a plan runs there", async () => {
    const id = await createConversation(owner, "Busy");
    await fixture.db.prisma.plan.create({
      data: { conversationId: id, title: "Busy plan", status: "running", maxParallel: 1, request: "busy" },
    });
    const response = await destroy(owner, id);
    expect(response.status).toBe(409);
    expect(JSON.stringify(await response.json())).toContain("cancel it");
    expect(await row(id)).not.toBeNull();
  });
});

describe("leave", () => {
  it("a member leaves; the conversation drops out of their list and they can no longer read it", async () => {
    const id = await sharedConversation("To leave");
    const left = await member.DELETE(
      browserRequest(`/api/conversations/${id}/members/${bob.id}`, { cookie: bob.cookie, method: "DELETE" }),
      params({ conversationId: id, userId: bob.id }),
    );
    expect(left.status).toBe(204);
    expect((await list(bob)).some((c) => c.id === id)).toBe(false);
    expect(
      (await conversation.GET(browserRequest(`/api/conversations/${id}`, { cookie: bob.cookie }), params({ conversationId: id }))).status,
    ).toBe(404);
    // an outsider cannot "leave" for someone else
    const forged = await member.DELETE(
      browserRequest(`/api/conversations/${id}/members/${owner.id}`, { cookie: outsider.cookie, method: "DELETE" }),
      params({ conversationId: id, userId: owner.id }),
    );
    expect(forged.status).toBe(404);
  });
});

describe("who is told", () => {
  it("renames and archiving tell every member; deletion tells the members it had, once, after it is gone", async () => {
    const id = await sharedConversation("Told");
    const calls: { kind: string; conversationId: string; userIds: string[]; exists: boolean }[] = [];
    const notifier: ConversationChangeNotifier = {
      conversationChanged: (input) => void calls.push({ kind: "changed", ...input, exists: true }),
      conversationDeleted: (input) => void calls.push({ kind: "deleted", ...input, exists: false }),
    };
    const services = createConversationManageServices(fixture.db.prisma, notifier);
    const actor = { id: owner.id, role: "member" as const };
    await services.rename({ actor, conversationId: id, title: "Told again" });
    await services.rename({ actor, conversationId: id, title: "Told again" }); // no change, nobody told
    await services.setArchived({ actor, conversationId: id, archived: true });
    await services.remove({ actor, conversationId: id });
    expect(calls.map((call) => [call.kind, call.userIds.sort()])).toEqual([
      ["changed", [owner.id, bob.id].sort()],
      ["changed", [owner.id, bob.id].sort()],
      ["deleted", [owner.id, bob.id].sort()],
    ]);
    expect(await row(id)).toBeNull();
  });
});

describe("personal demo conversations", () => {
  it("each person who signs up gets their own demo, labelled, owned by them, with the demo agents", async () => {
    await seedWorkspace(fixture.db.prisma, { defaultModel: "offline", demoConversation: true });
    const first = await signUpInvited(fixture.db.prisma, fixture.admin, "Dana");
    const second = await signUpInvited(fixture.db.prisma, fixture.admin, "Eli");
    const [mine, theirs] = [(await list(first)).filter((c) => c.isDemo), (await list(second)).filter((c) => c.isDemo)];
    expect(mine).toHaveLength(1);
    expect(theirs).toHaveLength(1);
    expect(mine[0].id).not.toBe(theirs[0].id);
    expect(mine[0].title).toBe(DEMO_CONVERSATION_TITLE);
    const demo = await fixture.db.prisma.conversation.findUniqueOrThrow({
      where: { id: mine[0].id },
      include: { memberships: true, agents: { include: { agent: true } } },
    });
    expect(demo.memberships.map((m) => [m.userId, m.role])).toEqual([[first.id, "owner"]]);
    expect(demo.agents.map((a) => a.agent.handle).sort()).toEqual(["analyst", "commander", "researcher", "writer"]);
    // the owner of a demo may delete it like any conversation of theirs
    expect((await destroy(first, demo.id)).status).toBe(204);
    expect((await list(second)).filter((c) => c.isDemo)).toHaveLength(1);
  });
});
