/**
 * The automation API (/api/v1, bearer tokens or signed webhooks). Not called by the
 * browser, but its bodies and answers live here like every route's.
 */
import { z } from "zod";
import { BIDI_CONTROLS_MESSAGE, hasBidiControls, int32, storableText } from "../../core/text.ts";
import { messageSchema, planSchema } from "../dto.ts";
import type { ConversationEventDTO } from "../events.ts";
import { MAX_MESSAGE_CHARS } from "../limits.ts";
import { agentOptionSchema } from "./account.ts";
import { conversationSummarySchema, stepDetailSchema } from "./conversations.ts";
import { defineRoute } from "./define.ts";

const auditEventSchema = z.object({
  id: z.string(),
  at: z.string(),
  actor: z.object({ id: z.string(), name: z.string(), email: z.string() }).nullable(),
  actorKind: z.string(),
  action: z.string(),
  conversation: z.object({ id: z.string(), title: z.string() }).nullable(),
  target: z.object({ kind: z.string(), id: z.string(), label: z.string().nullable() }),
  detail: z.unknown(),
});

/** a plan with usage per step and in total, and its timing metrics (services/plan-metrics.ts) */
const planWithMetricsSchema = planSchema.extend({
  metrics: z.object({
    makespanMs: z.number().nullable(),
    criticalPathMs: z.number(),
    totalAgentWorkMs: z.number(),
    usefulParallelism: z.number().nullable(),
    /** per step (services/plan-metrics.ts StepMetrics) */
    steps: z.array(z.unknown()),
  }),
});

export const v1Routes = {
  agents: defineRoute({ method: "GET", path: "/api/v1/agents", response: z.object({ agents: z.array(agentOptionSchema) }) }),
  /** admin scope: the audit log, newest first (`?before=<id>` pages) */
  audit: defineRoute({ method: "GET", path: "/api/v1/audit", response: z.object({ events: z.array(auditEventSchema) }) }),
  conversations: defineRoute({
    method: "GET",
    path: "/api/v1/conversations",
    response: z.object({ conversations: z.array(conversationSummarySchema) }),
  }),
  createConversation: defineRoute({
    method: "POST",
    path: "/api/v1/conversations",
    body: z.strictObject({
      title: storableText()
        .min(1)
        .max(200)
        .refine((title) => !hasBidiControls(title), BIDI_CONTROLS_MESSAGE),
      agents: z.array(storableText().min(1).max(40)).max(50).default([]),
    }),
    response: z.object({ id: z.string(), title: z.string() }),
    status: 201,
  }),
  /** `?after=<seq>&limit=<1..1000>` */
  events: defineRoute({
    method: "GET",
    path: "/api/v1/conversations/:id/events",
    response: z.object({ events: z.array(z.custom<ConversationEventDTO>()), lastSeq: z.number() }),
  }),
  postMessage: defineRoute({
    method: "POST",
    path: "/api/v1/conversations/:id/messages",
    body: z.strictObject({
      body: storableText().max(MAX_MESSAGE_CHARS),
      mentions: z.array(storableText().min(1).max(40)).max(20).default([]),
    }),
    response: messageSchema.extend({ notInConversation: z.array(z.string()) }),
    status: 201,
  }),
  /** the plan JSON itself is validated by the core, exactly as the commander's tool input is */
  submitPlan: defineRoute({
    method: "POST",
    path: "/api/v1/conversations/:id/plans",
    body: z.looseObject({ request: storableText().max(20_000).optional() }),
    response: planSchema,
    status: 201,
  }),
  /** an outside event for the agent that owns the work (bearer token or a signed delivery) */
  react: defineRoute({
    method: "POST",
    path: "/api/v1/conversations/:id/reactions",
    body: z.strictObject({
      source: storableText().min(1).max(40),
      target: z.union([
        z.strictObject({ planId: storableText().min(1).max(64), stepIndex: int32().min(1) }),
        /** a workspace step's branch, `baton/<plan>-<step>` */
        z.strictObject({ branch: storableText().min(1).max(200) }),
        z.strictObject({ agent: storableText().min(1).max(40) }),
      ]),
      payload: z.unknown(),
    }),
    response: z.object({ messageId: z.string(), runId: z.string(), agent: z.string() }),
    status: 202,
  }),
  plan: defineRoute({ method: "GET", path: "/api/v1/plans/:id", response: planWithMetricsSchema }),
  stepDetail: defineRoute({ method: "GET", path: "/api/v1/plans/:id/steps/:index", response: stepDetailSchema }),
};
