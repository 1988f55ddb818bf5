/**
 * Shapes that cross the wire (REST responses, Socket.IO payloads, replayed events),
 * as zod schemas with their types inferred from them: the route table
 * (protocol/rest/) parses responses with these in development and tests, and the
 * browser imports the types only.
 */
import { z } from "zod";
import { reactionSchema } from "./reactions.ts";
import { noticeSchema } from "./notices.ts";
import {
  AGENT_ROLES,
  EFFORT_LEVELS,
  ESCALATION_CAUSES,
  FOR_EACH_FIELDS,
  FORM_FIELD_TYPES,
  ON_FAILURE_POLICIES,
  PLAN_STATUSES,
  RUN_KINDS,
  RUN_STATUSES,
  STEP_STATUSES,
  type FormSpec,
} from "../core/types.ts";
import { MODEL_REASONS } from "../core/run-model.ts";

/** The unions' one home is the core (core/types.ts); the browser imports them from here. */
export type { AgentRole, RunStatus } from "../core/types.ts";

export const agentRoleSchema = z.enum(AGENT_ROLES);

/** A structured mention: an agent of the conversation (starts it) or a person of it (notifies them, wakes nobody). */
export const mentionSchema = z.union([
  z.object({ agentId: z.string(), handle: z.string() }),
  z.object({ userId: z.string(), handle: z.string() }),
]);
export type MentionDTO = z.infer<typeof mentionSchema>;

export const attachmentSchema = z.object({
  id: z.string(),
  name: z.string(),
  mediaType: z.string(),
  size: z.number(),
  untrusted: z.boolean(),
});
export type AttachmentDTO = z.infer<typeof attachmentSchema>;

export const MESSAGE_KINDS = ["text", "dispatch", "result", "form", "decision", "plan", "error", "outcome", "stopped"] as const;

export const messageSchema = z.object({
  id: z.string(),
  conversationId: z.string(),
  authorKind: z.enum(["user", "agent", "system"]),
  author: z.object({ id: z.string(), name: z.string(), handle: z.string().optional(), role: agentRoleSchema.optional() }).nullable(),
  /** outcome: the commander closing a plan, or correcting an earlier message by what happened */
  kind: z.enum(MESSAGE_KINDS),
  body: z.string(),
  /** text the server wrote: the body's words as data, for the reader's language (notices.ts); null for anyone else's */
  notice: noticeSchema.nullable(),
  mentions: z.array(mentionSchema),
  planId: z.string().nullable(),
  stepId: z.string().nullable(),
  runId: z.string().nullable(),
  formId: z.string().nullable(),
  attachments: z.array(attachmentSchema),
  createdAt: z.string(),
  /** the author changed the body after sending it */
  editedAt: z.string().nullable(),
  /** the author deleted it: body, mentions and attachments are empty (a tombstone) */
  deletedAt: z.string().nullable(),
  /** people's emoji reactions, one entry per emoji */
  reactions: z.array(reactionSchema),
});
export type MessageDTO = z.infer<typeof messageSchema>;

export const usageSchema = z.object({
  tokensIn: z.number(),
  tokensOut: z.number(),
  cost: z.number(),
  /** of tokensIn: read from and written to the provider's prompt cache */
  cacheReadTokens: z.number().optional(),
  cacheWriteTokens: z.number().optional(),
  /** part of it is estimated: a model call cut mid-stream reports no usage */
  estimated: z.boolean().optional(),
});
export type UsageDTO = z.infer<typeof usageSchema>;

export const stepSchema = z.object({
  id: z.string(),
  index: z.number(),
  title: z.string(),
  assignee: z.string(),
  input: z.string(),
  waitFor: z.array(z.number()),
  /** the dependencies in waitFor whose failure does not hold this step */
  optionalWaitFor: z.array(z.number()),
  /** ready once this many dependencies succeeded (null: all) */
  quorum: z.number().nullable(),
  /** a for_each step: mapped over step `from`'s list; once expanded, the steps it fanned out to */
  forEach: z
    .object({ from: z.number(), field: z.enum(FOR_EACH_FIELDS), maxParallel: z.number().nullable(), children: z.array(z.number()) })
    .nullable(),
  /** set on a step a for_each step fanned out to */
  parentIndex: z.number().nullable(),
  onFailure: z.enum(ON_FAILURE_POLICIES),
  maxRetries: z.number(),
  status: z.enum(STEP_STATUSES),
  attempts: z.number(),
  /** transient failures in the current retry budget (0 after a decided retry) */
  transientFailures: z.number(),
  renderedInput: z.string().nullable(),
  outputSummary: z.string().nullable(),
  outputFiles: z.array(z.string()),
  failureReason: z.string().nullable(),
  decisionPending: z.boolean(),
  retryAt: z.string().nullable(),
  startedAt: z.string().nullable(),
  endedAt: z.string().nullable(),
  /**
   * the current attempt was hedged: a twin run on `model` raced (`racing`: still races)
   * the step's run because it ran long (core/hedge.ts); absent or null: not hedged
   */
  hedge: z.object({ model: z.string(), racing: z.boolean() }).nullable().optional(),
  /** the effort the commander asked for; absent: standard */
  effort: z.enum(EFFORT_LEVELS).optional(),
  /** attempt `attempt` ran on the agent's escalation model because of `cause` (core/run-model.ts) */
  escalation: z
    .object({ attempt: z.number(), cause: z.enum(ESCALATION_CAUSES) })
    .nullable()
    .optional(),
  /** summed over the step's runs; present where the server computed it (plan reads) */
  usage: usageSchema.optional(),
});
export type StepDTO = z.infer<typeof stepSchema>;

export const planSchema = z.object({
  id: z.string(),
  conversationId: z.string(),
  title: z.string(),
  status: z.enum(PLAN_STATUSES),
  maxParallel: z.number(),
  request: z.string(),
  /** a re-run of an ended plan: that plan's id (the other way round, the UI looks among the plans) */
  rerunOfId: z.string().nullable(),
  createdAt: z.string(),
  endedAt: z.string().nullable(),
  steps: z.array(stepSchema),
  /** summed over every run of the plan (steps and commander decisions) */
  usage: usageSchema.optional(),
});
export type PlanDTO = z.infer<typeof planSchema>;

export const runSchema = z.object({
  id: z.string(),
  conversationId: z.string(),
  agentHandle: z.string().nullable(),
  planId: z.string().nullable(),
  stepIndex: z.number().nullable(),
  kind: z.enum(RUN_KINDS),
  attempt: z.number(),
  status: z.enum(RUN_STATUSES),
  model: z.string(),
  /** why the run is on that model (core/run-model.ts); absent from an older server: agent */
  modelReason: z.enum(MODEL_REASONS).optional(),
  startedAt: z.string().nullable(),
  endedAt: z.string().nullable(),
  error: z.string().nullable(),
  tokensIn: z.number(),
  tokensOut: z.number(),
  cost: z.number(),
  /** part of the usage is estimated: a model call cut mid-stream reports none */
  usageEstimated: z.boolean(),
});
export type RunDTO = z.infer<typeof runSchema>;

/** a form as it crosses the wire (the core validates a proposed one with its stricter formSpecSchema) */
const formSpecWire = z.object({
  title: z.string(),
  fields: z.array(
    z.object({
      name: z.string(),
      label: z.string(),
      type: z.enum(FORM_FIELD_TYPES),
      required: z.boolean(),
      options: z.array(z.string()).optional(),
      secret: z.boolean().optional(),
    }),
  ),
}) satisfies z.ZodType<FormSpec>;

export const formSchema = z.object({
  id: z.string(),
  conversationId: z.string(),
  planId: z.string().nullable(),
  stepIndex: z.number().nullable(),
  spec: formSpecWire,
  status: z.enum(["open", "answered", "cancelled"]),
  answer: z
    .object({ by: z.object({ id: z.string(), name: z.string() }), values: z.record(z.string(), z.unknown()), at: z.string() })
    .nullable(),
});
export type FormDTO = z.infer<typeof formSchema>;
