/**
 * What route tests do again and again through the real handlers and sessions: make a
 * conversation, invite someone to it, accept every pending invitation. Test scaffolding
 * only; nothing outside tests imports it.
 */
import { expect } from "vitest";
import { browserRequest, type TestAccount } from "@/server/auth/testing/accounts.ts";
import * as conversations from "@/app/api/conversations/route.ts";
import * as members from "@/app/api/conversations/[conversationId]/members/route.ts";
import * as myInvitations from "@/app/api/invitations/route.ts";
import * as answer from "@/app/api/invitations/[invitationId]/route.ts";

/** a route handler's second argument */
export const params = <T extends Record<string, string>>(values: T) => ({ params: Promise.resolve(values) });

/** A new conversation of `as`'s with @researcher in it; its id. */
export async function createConversation(as: TestAccount, title: string): Promise<string> {
  const response = await conversations.POST(
    browserRequest("/api/conversations", { cookie: as.cookie, body: { title, agentHandles: ["researcher"] } }),
  );
  expect(response.status).toBe(201);
  return ((await response.json()) as { id: string }).id;
}

/** `as` invites `email` to the conversation (the answer is the route's). */
export const invite = (as: TestAccount, conversationId: string, email: string) =>
  members.POST(
    browserRequest(`/api/conversations/${conversationId}/members`, { cookie: as.cookie, body: { email } }),
    params({ conversationId }),
  );

/** `as` accepts every invitation waiting for them; the invitations accepted. */
export async function acceptAll(as: TestAccount): Promise<{ id: string; conversation: { id: string } }[]> {
  const list = (await (await myInvitations.GET(browserRequest("/api/invitations", { cookie: as.cookie }))).json()) as {
    invitations: { id: string; conversation: { id: string } }[];
  };
  for (const pending of list.invitations) {
    const response = await answer.POST(
      browserRequest(`/api/invitations/${pending.id}`, { cookie: as.cookie, body: { accept: true } }),
      params({ invitationId: pending.id }),
    );
    expect(response.status).toBe(200);
  }
  return list.invitations;
}
