/** Admin: agents, sign-up invites, trying a model id. */
import { z } from "zod";
import { storableText } from "../../core/text.ts";
import { agentRoleSchema } from "../dto.ts";
import { defineRoute } from "./define.ts";
import { queryInt } from "./query.ts";
import { effortModelsSchema } from "../../core/run-model.ts";
import type { Usage } from "./admin-views.ts";

export const agentInputSchema = z.object({
  handle: z.string().regex(/^[a-z0-9_-]{1,40}$/, "lowercase letters, digits, - and _ (max 40)"),
  name: storableText().trim().min(1).max(80),
  role: agentRoleSchema,
  /** what the agent is for, in a sentence or two: the commander's roster shows it */
  description: storableText().trim().max(400).default(""),
  systemPrompt: storableText().max(20_000),
  model: storableText().trim().min(1).max(120),
  allowedTools: z.array(storableText().trim().min(1).max(80)).max(50),
  skills: z.array(storableText().trim().min(1).max(80)).max(50),
  concurrency: z.number().int().min(1).max(256),
  /** the model a step of this agent that runs long races on (hedging, core/hedge.ts); null or empty: none */
  hedgeModel: storableText().trim().max(120).nullable().optional(),
  /**
   * the model one attempt of a step moves to after a failure a stronger model could fix
   * (core/run-model.ts), once per step; null or empty: none
   */
  escalationModel: storableText().trim().max(120).nullable().optional(),
});
export type AgentInput = z.infer<typeof agentInputSchema>;

export const adminAgentSchema = agentInputSchema.extend({
  id: z.string(),
  description: z.string(),
  updatedAt: z.string(),
  /** when an admin disabled it; null: enabled */
  disabledAt: z.string().nullable(),
});
export type AdminAgent = z.infer<typeof adminAgentSchema>;

export const modelTrialSchema = z.discriminatedUnion("ok", [
  z.object({ ok: z.literal(true), latencyMs: z.number(), reply: z.string() }),
  z.object({ ok: z.literal(false), error: z.string() }),
]);
export type ModelTrial = z.infer<typeof modelTrialSchema>;

/** the admin's effort level → model mapping, as the browser sends and reads it */
export type EffortModelsInput = z.infer<typeof effortModelsSchema>;

export const inviteRoleSchema = z.enum(["admin", "member"]);

/** what became of an invite link: used and revoked are for good; an unused one expires with time */
export const inviteStateSchema = z.enum(["open", "used", "expired", "revoked"]);
export type InviteState = z.infer<typeof inviteStateSchema>;

export interface AdminInvite {
  id: string;
  token: string;
  role: string;
  state: InviteState;
  createdAt: string;
  expiresAt: string;
}

export const adminRoutes = {
  agents: defineRoute({ method: "GET", path: "/api/admin/agents", response: z.object({ agents: z.array(adminAgentSchema) }) }),
  createAgent: defineRoute({
    method: "POST",
    path: "/api/admin/agents",
    body: agentInputSchema.strict(),
    response: z.object({ agent: adminAgentSchema }),
    status: 201,
  }),
  updateAgent: defineRoute({
    method: "PUT",
    path: "/api/admin/agents/:agentId",
    body: agentInputSchema.strict(),
    response: z.object({ agent: adminAgentSchema }),
  }),
  /** disable (nothing new of it starts; running runs finish) or enable again; never the commander */
  setAgentEnabled: defineRoute({
    method: "PUT",
    path: "/api/admin/agents/:agentId/enabled",
    body: z.strictObject({ enabled: z.boolean() }),
    response: z.object({ agent: adminAgentSchema }),
  }),
  /** refused (409) for the commander and while runs of the agent are live (queued, running, blocked on a form) */
  deleteAgent: defineRoute({
    method: "DELETE",
    path: "/api/admin/agents/:agentId",
    response: z.object({ deleted: z.object({ id: z.string(), handle: z.string() }) }),
  }),
  createInvite: defineRoute({
    method: "POST",
    path: "/api/admin/invites",
    body: z.strictObject({ role: inviteRoleSchema.default("member") }),
    response: z.object({
      invite: z.object({ id: z.string(), token: z.string(), role: inviteRoleSchema, expiresAt: z.string(), url: z.string() }),
    }),
    status: 201,
  }),
  /** an unused invite link stops working at once (409 once used) */
  revokeInvite: defineRoute({
    method: "DELETE",
    path: "/api/admin/invites/:inviteId",
    response: z.object({ invite: z.object({ id: z.string(), state: inviteStateSchema }) }),
  }),
  /**
   * the bill over the last `?days=` (1..366, default 30): by model, agent, model reason
   * (core/run-model.ts: agent, effort:light, effort:deep, escalation, hedge) and day
   */
  usage: defineRoute({
    method: "GET",
    path: "/api/admin/usage",
    query: z.object({ days: queryInt(1, 366).optional() }),
    response: z.object({ usage: z.custom<Usage>() }),
  }),
  /** the model each effort level runs on (core/run-model.ts); an unmapped level: the agent's own */
  effortModels: defineRoute({
    method: "GET",
    path: "/api/admin/effort-models",
    response: z.object({ effortModels: effortModelsSchema }),
  }),
  /** replaces the mapping; 400 for a model this server cannot run */
  setEffortModels: defineRoute({
    method: "PUT",
    path: "/api/admin/effort-models",
    body: effortModelsSchema,
    response: z.object({ effortModels: effortModelsSchema }),
  }),
  /** one small call to a model id, to see it work (or why not) before saving an agent with it */
  testModel: defineRoute({
    method: "POST",
    path: "/api/admin/models/test",
    body: z.strictObject({ model: storableText().trim().min(1).max(120) }),
    response: modelTrialSchema,
  }),
};
