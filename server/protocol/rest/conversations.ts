/** Conversations and what happens in them: the snapshot, messages, uploads, forms, plan controls. */
import { z } from "zod";
import { COMMANDER_REPLY_MODES } from "../../core/addressing.ts";
import { BIDI_CONTROLS_MESSAGE, hasBidiControls, int32, storableText } from "../../core/text.ts";
import { agentRoleSchema, attachmentSchema, formSchema, messageSchema, planSchema, runSchema, stepSchema } from "../dto.ts";
import { MAX_CONVERSATION_TITLE_CHARS, MAX_MESSAGE_CHARS, MAX_MESSAGE_PAGE } from "../limits.ts";
import { REACTION_EMOJI, reactionSchema } from "../reactions.ts";
import { defineRoute } from "./define.ts";
import { queryInt } from "./query.ts";

const handle = z.string().regex(/^[a-z0-9_-]{1,40}$/);

export const conversationSummarySchema = z.object({
  id: z.string(),
  title: z.string(),
  lastSeq: z.number(),
  updatedAt: z.string(),
  /** archived by an owner: listed in the sidebar's Archived section */
  archivedAt: z.string().nullable(),
  /** the person's own demo conversation */
  isDemo: z.boolean(),
});
export type ConversationSummary = z.infer<typeof conversationSummarySchema>;

/** Tokens (in + out), cost and count of runs; `estimated` when part of it is (a model call cut mid-stream reports no usage). */
export const usageTotalSchema = z.object({ tokens: z.number(), cost: z.number(), runs: z.number(), estimated: z.boolean() });
export type UsageTotal = z.infer<typeof usageTotalSchema>;

/**
 * A plan as the snapshot sends it. Its steps come with it when the plan is still going,
 * is the newest, or one of the newest messages belongs to it; otherwise `steps` is null
 * and `plan` reads them when someone chooses the plan (an ended plan's steps no longer
 * change, so no event is missed meanwhile).
 */
export const snapshotPlanSchema = planSchema.extend({ steps: z.array(stepSchema).nullable() });
export type SnapshotPlan = z.infer<typeof snapshotPlanSchema>;

export const snapshotSchema = z.object({
  conversation: z.object({
    id: z.string(),
    title: z.string(),
    commanderReplies: z.enum(COMMANDER_REPLY_MODES),
    /** archived by an owner: read-only until brought back */
    archivedAt: z.string().nullable(),
  }),
  /** the seq the snapshot is consistent with; events after it are replayed */
  lastSeq: z.number(),
  agents: z.array(z.object({ id: z.string(), handle: z.string(), name: z.string(), role: agentRoleSchema, model: z.string() })),
  members: z.array(z.object({ id: z.string(), name: z.string(), email: z.string(), role: z.string() })),
  /** the newest messages (at most SNAPSHOT_MESSAGES), oldest first */
  messages: z.array(messageSchema),
  /** older messages exist: `earlierMessages` pages back through them */
  hasEarlierMessages: z.boolean(),
  /** every plan, oldest first; the steps of some (see snapshotPlanSchema) */
  plans: z.array(snapshotPlanSchema),
  /** the forms still open, and those of `messages` (a page of earlier messages brings its own) */
  forms: z.array(formSchema),
  /** the runs that had not ended (queued, running, blocked); the rest are counted in `endedUsage` */
  runs: z.array(runSchema),
  /** what the runs that had ended cost, in all and by plan (a plan's planning call included) */
  endedUsage: z.object({ total: usageTotalSchema, byPlan: z.record(z.string(), usageTotalSchema) }),
});
export type Snapshot = z.infer<typeof snapshotSchema>;

export const stepDetailSchema = z.object({
  step: stepSchema,
  log: z.array(
    z.object({ id: z.string(), at: z.string(), phase: z.string(), message: z.string(), runId: z.string().nullable(), data: z.unknown() }),
  ),
  runs: z.array(runSchema),
});
export type StepDetail = z.infer<typeof stepDetailSchema>;

export const planControlSchema = z.discriminatedUnion("action", [
  z.strictObject({ action: z.literal("cancel"), reason: storableText().max(500).optional() }),
  z.strictObject({ action: z.literal("retry"), stepIndex: int32().positive() }),
  z.strictObject({ action: z.literal("skip"), stepIndex: int32().positive(), reason: storableText().max(500).optional() }),
  /** stop one running step (the plan goes on as its on_failure says) */
  z.strictObject({ action: z.literal("stop"), stepIndex: int32().positive() }),
  /** a new plan from an ended plan's spec */
  z.strictObject({ action: z.literal("rerun") }),
]);

/** A conversation's title, as a person names it at creation or later. */
// shown in every member's sidebar and inside sentences ("… renamed it to …"): no override may reorder them
const conversationTitle = storableText()
  .trim()
  .min(1, "Give the conversation a title")
  .max(MAX_CONVERSATION_TITLE_CHARS)
  .refine((title) => !hasBidiControls(title), BIDI_CONTROLS_MESSAGE);

/** A message's text as a person sends or edits it: bounded, and not blank (`blank` says what to do instead). */
const messageText = (blank: string) =>
  storableText()
    .max(MAX_MESSAGE_CHARS, `A message can hold at most ${MAX_MESSAGE_CHARS} characters.`)
    .refine((body) => body.trim().length > 0, blank);

export const conversationRoutes = {
  list: defineRoute({
    method: "GET",
    path: "/api/conversations",
    response: z.object({ conversations: z.array(conversationSummarySchema) }),
  }),
  create: defineRoute({
    method: "POST",
    path: "/api/conversations",
    body: z.strictObject({
      title: conversationTitle,
      agentHandles: z.array(handle).max(30).default([]),
    }),
    response: z.object({ id: z.string(), title: z.string() }),
    status: 201,
  }),
  /** the person has read up to `upTo` (the newest message they saw; now when absent): the "new messages" line moves past it */
  markRead: defineRoute({
    method: "POST",
    path: "/api/conversations/:conversationId/read",
    body: z.object({ upTo: z.iso.datetime().optional() }).strict(),
    response: z.object({ lastReadAt: z.string().nullable() }),
  }),
  /** the full snapshot: first load, and when a replay would be too long */
  get: defineRoute({ method: "GET", path: "/api/conversations/:conversationId", response: snapshotSchema }),
  /** owners: when the commander answers messages that address no agent, the title, archived or not; answers with what changed */
  settings: defineRoute({
    method: "PATCH",
    path: "/api/conversations/:conversationId",
    body: z
      .object({
        commanderReplies: z.enum(COMMANDER_REPLY_MODES).optional(),
        title: conversationTitle.optional(),
        archived: z.boolean().optional(),
      })
      .strict()
      .refine((body) => body.commanderReplies !== undefined || body.title !== undefined || body.archived !== undefined, {
        message: "Send at least one of commanderReplies, title, archived",
      }),
    response: z.object({
      commanderReplies: z.enum(COMMANDER_REPLY_MODES).optional(),
      title: z.string().optional(),
      archivedAt: z.string().nullable().optional(),
    }),
  }),
  /** owners delete the conversation and everything in it; the body confirms it */
  remove: defineRoute({
    method: "DELETE",
    path: "/api/conversations/:conversationId",
    body: z.strictObject({ confirm: z.literal(true, "Send { confirm: true } to delete the conversation and everything in it") }),
    response: null,
    status: 204,
  }),
  /** the author edits their own message; everyone sees it live */
  editMessage: defineRoute({
    method: "PATCH",
    path: "/api/conversations/:conversationId/messages/:messageId",
    body: z.strictObject({
      body: messageText("Write something, or delete the message."),
    }),
    response: z.object({ message: messageSchema }),
  }),
  /** the author deletes their own message, leaving a tombstone */
  deleteMessage: defineRoute({
    method: "DELETE",
    path: "/api/conversations/:conversationId/messages/:messageId",
    response: z.object({ message: messageSchema }),
  }),
  /** a member adds (`on: true`) or removes one of their emoji reactions to a message */
  setReaction: defineRoute({
    method: "PUT",
    path: "/api/conversations/:conversationId/messages/:messageId/reactions",
    body: z.strictObject({ emoji: z.enum(REACTION_EMOJI), on: z.boolean() }),
    response: z.object({ reactions: z.array(reactionSchema) }),
  }),
  /**
   * a member stops a live run: a mention's answer or the commander's reply (the run), a
   * step's run (that step only), or a commander's decision run (its plan); `stopped` says which
   */
  stopRun: defineRoute({
    method: "POST",
    path: "/api/conversations/:conversationId/runs/:runId",
    body: z.strictObject({ action: z.literal("stop") }),
    response: z.object({ stopped: z.enum(["step", "run", "plan"]), planId: z.string().nullable(), stepIndex: z.number().nullable() }),
  }),
  /** `?before=<message id>&limit=200`: the messages just before one already shown, oldest first, and the forms they show */
  earlierMessages: defineRoute({
    method: "GET",
    path: "/api/conversations/:conversationId/messages",
    query: z.object({ before: z.string().min(1).max(128), limit: queryInt(1, MAX_MESSAGE_PAGE).optional() }),
    response: z.object({ messages: z.array(messageSchema), hasEarlier: z.boolean(), forms: z.array(formSchema) }),
  }),
  postMessage: defineRoute({
    method: "POST",
    path: "/api/conversations/:conversationId/messages",
    body: z
      .strictObject({
        // empty is fine when a file goes with it: a file can be sent on its own
        body: storableText().max(MAX_MESSAGE_CHARS, `A message can hold at most ${MAX_MESSAGE_CHARS} characters.`).default(""),
        mentionHandles: z.array(handle).max(20).default([]),
        attachmentIds: z.array(storableText().min(1).max(64)).max(10).default([]),
      })
      .refine((message) => message.body.trim().length > 0 || message.attachmentIds.length > 0, {
        message: "Write something first, or attach a file.",
        path: ["body"],
      }),
    /** notInConversation: handles mentioned that are not in the conversation (offer to add them) */
    response: z.object({ message: messageSchema, notInConversation: z.array(z.string()) }),
    status: 201,
  }),
  upload: defineRoute({
    method: "POST",
    path: "/api/conversations/:conversationId/uploads",
    body: "form-data",
    response: z.object({ attachment: attachmentSchema }),
    status: 201,
  }),
  /** the file itself (not JSON): the browser links to it with `apiPath` */
  artifact: defineRoute({ method: "GET", path: "/api/conversations/:conversationId/artifacts/:artifactId", response: null }),
  answerForm: defineRoute({
    method: "POST",
    path: "/api/conversations/:conversationId/forms/:formId",
    body: z.strictObject({
      values: z.record(storableText().max(100), z.union([storableText().max(10_000), z.number(), z.boolean(), z.null()])),
    }),
    response: z.object({ form: formSchema }),
  }),
  /**
   * cancel (stop) a plan, stop one step, retry or skip a failed step (a retry after the
   * plan ended reopens it), or re-run an ended plan (`plan` is then the new one, linked by
   * its rerunOfId); 409 names why a control cannot apply now
   */
  controlPlan: defineRoute({
    method: "POST",
    path: "/api/conversations/:conversationId/plans/:planId",
    body: planControlSchema,
    response: z.object({
      action: z.enum(["cancel", "retry", "skip", "stop", "rerun"]),
      plan: z.object({ id: z.string(), status: planSchema.shape.status }),
      step: stepSchema.nullable(),
    }),
  }),
  /** a plan with its steps, for one the snapshot sent without them */
  plan: defineRoute({
    method: "GET",
    path: "/api/conversations/:conversationId/plans/:planId",
    response: z.object({ plan: planSchema }),
  }),
  stepDetail: defineRoute({
    method: "GET",
    path: "/api/conversations/:conversationId/plans/:planId/steps/:stepIndex",
    response: stepDetailSchema,
  }),
};
