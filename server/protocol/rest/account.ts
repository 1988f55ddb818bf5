/** The signed-in person: signing in and out (better-auth's endpoints), agents to pick from, access tokens. */
import { z } from "zod";
import { agentRoleSchema } from "../dto.ts";
import { defineRoute } from "./define.ts";

export const TOKEN_SCOPES = ["read", "write", "admin"] as const;
export type TokenScope = (typeof TOKEN_SCOPES)[number];
/** the longest a personal access token may live */
export const MAX_TOKEN_DAYS = 366;

export const tokenSchema = z.object({
  id: z.string(),
  name: z.string(),
  prefix: z.string(),
  scopes: z.array(z.enum(TOKEN_SCOPES)),
  expiresAt: z.string(),
  lastUsedAt: z.string().nullable(),
  revokedAt: z.string().nullable(),
  createdAt: z.string(),
});
export type TokenDTO = z.infer<typeof tokenSchema>;

export const agentOptionSchema = z.object({
  id: z.string(),
  handle: z.string(),
  name: z.string(),
  role: agentRoleSchema,
  model: z.string(),
  concurrency: z.number(),
});

/** better-auth answers with its own shapes; the app reads nothing from them but success */
const authAnswer = z.unknown();

export const accountRoutes = {
  signIn: defineRoute({
    method: "POST",
    path: "/api/auth/sign-in/email",
    body: z.object({ email: z.string(), password: z.string() }),
    response: authAnswer,
  }),
  signUp: defineRoute({
    method: "POST",
    path: "/api/auth/sign-up/email",
    body: z.object({ name: z.string(), email: z.string(), password: z.string(), inviteToken: z.string().optional() }),
    response: authAnswer,
  }),
  /** better-auth's own password change: the current password is checked, other sessions are signed out */
  changePassword: defineRoute({
    method: "POST",
    path: "/api/auth/change-password",
    body: z.object({ currentPassword: z.string(), newPassword: z.string(), revokeOtherSessions: z.boolean() }),
    response: authAnswer,
  }),
  signOut: defineRoute({ method: "POST", path: "/api/auth/sign-out", body: z.object({}), response: authAnswer }),
  /** agents anyone may add to a new conversation */
  agents: defineRoute({ method: "GET", path: "/api/agents", response: z.object({ agents: z.array(agentOptionSchema) }) }),
  tokens: defineRoute({ method: "GET", path: "/api/tokens", response: z.object({ tokens: z.array(tokenSchema) }) }),
  /** the secret is in this answer and nowhere else, ever */
  createToken: defineRoute({
    method: "POST",
    path: "/api/tokens",
    body: z.strictObject({
      name: z.string().trim().min(1).max(100),
      scopes: z.array(z.enum(TOKEN_SCOPES)).min(1).max(3),
      expiresInDays: z.number().int().min(1).max(MAX_TOKEN_DAYS),
    }),
    response: z.object({ token: z.string(), record: tokenSchema }),
    status: 201,
  }),
  revokeToken: defineRoute({ method: "DELETE", path: "/api/tokens/:tokenId", response: z.object({ token: tokenSchema }) }),
};

export function isTokenScope(value: string): value is TokenScope {
  return (TOKEN_SCOPES as readonly string[]).includes(value);
}
