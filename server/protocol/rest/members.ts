/** Who is in a conversation: people and their roles, agents, invitations by email. */
import { z } from "zod";
import { agentRoleSchema } from "../dto.ts";
import { defineRoute } from "./define.ts";

export const conversationRoleSchema = z.enum(["owner", "member"]);

const memberAgentSchema = z.object({ id: z.string(), handle: z.string(), name: z.string(), role: agentRoleSchema });

export const membersViewSchema = z.object({
  you: z.object({ role: conversationRoleSchema, canManage: z.boolean(), isAdmin: z.boolean() }),
  people: z.array(z.object({ id: z.string(), name: z.string(), email: z.string(), role: conversationRoleSchema })),
  agents: z.array(memberAgentSchema),
  /** pending email invitations; owners only (members see an empty list) */
  invitations: z.array(z.object({ id: z.string(), email: z.string(), createdAt: z.string() })),
});
export type MembersView = z.infer<typeof membersViewSchema>;

export const myInvitationSchema = z.object({
  id: z.string(),
  conversation: z.object({ id: z.string(), title: z.string() }),
  invitedBy: z.string(),
  createdAt: z.string(),
});

/** a person the members dialog's picker offers: `member` ones are shown as already in */
export const personChoiceSchema = z.object({ id: z.string(), name: z.string(), email: z.string(), member: z.boolean() });
export type PersonChoice = z.infer<typeof personChoiceSchema>;

export const memberRoutes = {
  /** owners: the workspace's people whose name or email holds `q`, for the people picker */
  people: defineRoute({
    method: "GET",
    path: "/api/conversations/:conversationId/people",
    query: z.object({ q: z.string().max(200) }),
    response: z.object({ people: z.array(personChoiceSchema) }),
  }),
  /** people (with roles), agents, and — for owners — pending invitations */
  list: defineRoute({ method: "GET", path: "/api/conversations/:conversationId/members", response: membersViewSchema }),
  /** 202 with the same body whether or not an account with that email exists */
  invite: defineRoute({
    method: "POST",
    path: "/api/conversations/:conversationId/members",
    body: z.strictObject({ email: z.email().max(200) }),
    response: z.object({ email: z.string(), status: z.literal("invited") }),
    status: 202,
  }),
  setRole: defineRoute({
    method: "PATCH",
    path: "/api/conversations/:conversationId/members/:userId",
    body: z.strictObject({ role: conversationRoleSchema }),
    response: z.object({ userId: z.string(), role: conversationRoleSchema }),
  }),
  /** an owner removes someone; anyone removes themselves (leaves) */
  remove: defineRoute({ method: "DELETE", path: "/api/conversations/:conversationId/members/:userId", response: null, status: 204 }),
  addAgent: defineRoute({
    method: "POST",
    path: "/api/conversations/:conversationId/agents",
    body: z.strictObject({ handle: z.string().regex(/^@?[a-z0-9_-]{1,40}$/i, "an agent handle") }),
    response: z.object({ agent: memberAgentSchema }),
    status: 201,
  }),
  removeAgent: defineRoute({
    method: "DELETE",
    path: "/api/conversations/:conversationId/agents/:agentId",
    response: null,
    status: 204,
  }),
  revokeInvitation: defineRoute({
    method: "DELETE",
    path: "/api/conversations/:conversationId/invitations/:invitationId",
    response: null,
    status: 204,
  }),
  /** the signed-in person's pending invitations */
  myInvitations: defineRoute({ method: "GET", path: "/api/invitations", response: z.object({ invitations: z.array(myInvitationSchema) }) }),
  answerInvitation: defineRoute({
    method: "POST",
    path: "/api/invitations/:invitationId",
    body: z.strictObject({ accept: z.boolean() }),
    response: z.object({ conversationId: z.string(), accepted: z.boolean() }),
  }),
};
