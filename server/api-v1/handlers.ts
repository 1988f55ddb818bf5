/**
 * The automation API's handlers (/api/v1), one per route of protocol/rest/v1.ts: the
 * table is typed by that file, so a route without a handler fails typecheck. Each is a
 * web-standard (Request, path params) → Response function; serve-v1.ts routes Node's
 * requests to them before Next sees the request (see its header for why).
 */
import type { RouteParams } from "../protocol/rest/define.ts";
import { v1Routes } from "../protocol/rest/v1.ts";
import { apiActor, requireApiConversation, withApiToken, withSignedBody } from "./api-auth.ts";
import { conflict } from "../protocol/errors.ts";
import { intParam } from "../http/params.ts";
import { idempotentPlanId, isUniqueViolation, readIdempotencyKey, submissionHash } from "./idempotency.ts";
import { readBody, respond } from "../http/route-spec.ts";
import { enforceRateLimit, MESSAGE_RATE } from "../auth/rate-limit.ts";

type V1Routes = typeof v1Routes;

export type V1Handler<S extends V1Routes[keyof V1Routes] = V1Routes[keyof V1Routes]> = (
  request: Request,
  params: RouteParams<S["path"]>,
) => Promise<Response>;

export const v1Handlers: { [K in keyof V1Routes]: V1Handler<V1Routes[K]> } = {
  agents: (request) => withApiToken(request, async ({ app }) => respond(v1Routes.agents, { agents: await app.conversations.listAgents() })),

  /** The audit log for an admin's token with the admin scope (newest first; `?before=<id>` pages). */
  audit: (request) =>
    withApiToken(
      request,
      async (runtime, principal) => {
        const before = new URL(request.url).searchParams.get("before") ?? undefined;
        const events = await runtime.app.admin.auditLog({
          actor: { id: principal.userId, role: principal.userRole, kind: "token" },
          before,
        });
        return respond(v1Routes.audit, { events });
      },
      { scope: "admin" },
    ),

  conversations: (request) =>
    withApiToken(request, async ({ app, apiUserId }) =>
      respond(v1Routes.conversations, { conversations: await app.conversations.listConversations({ userId: apiUserId }) }),
    ),

  createConversation: (request) =>
    withApiToken(request, async ({ app, apiUserId }) => {
      const body = await readBody(v1Routes.createConversation, request);
      const conversation = await app.conversations.createConversation({ title: body.title, agentHandles: body.agents, userId: apiUserId });
      return respond(v1Routes.createConversation, conversation);
    }),

  events: (request, params) =>
    withApiToken(
      request,
      async (runtime) => {
        await requireApiConversation(runtime, params.id);
        const url = new URL(request.url);
        const after = intParam(url.searchParams.get("after"), { name: "after", min: 0, fallback: 0 });
        const limit = intParam(url.searchParams.get("limit"), { name: "limit", min: 1, max: 1000, fallback: 500 });
        const events = await runtime.app.conversations.events({ conversationId: params.id, afterSeq: after, limit });
        return respond(v1Routes.events, { events, lastSeq: events.at(-1)?.seq ?? after });
      },
      { params, conversation: "id" },
    ),

  postMessage: (request, params) =>
    withApiToken(
      request,
      async (runtime, principal) => {
        // a person's messages share one limit, from the page and every token of theirs (each may wake the commander)
        if (principal.kind === "personal") enforceRateLimit(`message:${principal.userId}`, MESSAGE_RATE);
        await requireApiConversation(runtime, params.id);
        const body = await readBody(v1Routes.postMessage, request);
        const message = await runtime.app.messages.postMessage({
          conversationId: params.id,
          author: { kind: "user", userId: runtime.apiUserId },
          body: body.body,
          mentionHandles: body.mentions,
        });
        return respond(v1Routes.postMessage, message);
      },
      { params, conversation: "id" },
    ),

  // the plan JSON itself is validated by the core, exactly as the commander's tool input is
  submitPlan: (request, params) =>
    withApiToken(
      request,
      async (runtime) => {
        await requireApiConversation(runtime, params.id);
        const key = readIdempotencyKey(request);
        const body = await readBody(v1Routes.submitPlan, request);
        const { request: requestText, ...plan } = body;
        const planId = key === null ? undefined : idempotentPlanId({ userId: runtime.apiUserId, conversationId: params.id, key });
        const hash = key === null ? undefined : submissionHash(body);
        const replay = async (stored: { submissionHash: string | null } | null) => {
          const existing = await runtime.app.conversations.getPlan({ actor: apiActor(runtime), planId: planId! });
          // a plan stored before bodies were hashed has only its title to compare
          const same = stored?.submissionHash
            ? stored.submissionHash === hash
            : typeof plan.title !== "string" || existing.title === plan.title;
          if (!same) {
            const how = existing.title === plan.title ? " with another body" : "";
            throw conflict(
              `Idempotency-Key "${key}" was already used for the plan "${existing.title}"${how}; use a new key for another plan`,
            );
          }
          return respond(v1Routes.submitPlan, existing, { status: 200, headers: { "Idempotent-Replayed": "true" } });
        };
        const stored = planId ? await runtime.app.plans.submission({ planId }) : null;
        if (stored) return replay(stored);
        try {
          const created = await runtime.app.plans.submitPlan({
            conversationId: params.id,
            raw: plan,
            request: requestText,
            userId: runtime.apiUserId,
            planId,
            submissionHash: hash,
          });
          return respond(v1Routes.submitPlan, created);
        } catch (error) {
          // the same key submitted at the same moment: the other request made the plan
          if (planId && isUniqueViolation(error)) return replay(await runtime.app.plans.submission({ planId }));
          throw error;
        }
      },
      { params, conversation: "id" },
    ),

  /** An outside event for the agent that owns the work: bearer token or a signed delivery (recorded, so never twice). */
  react: (request, params) =>
    withSignedBody(
      request,
      async (runtime, raw, delivery) => {
        await requireApiConversation(runtime, params.id);
        const body = await readBody(v1Routes.react, raw);
        const routed = await runtime.app.reactions.route({ conversationId: params.id, ...body, delivery });
        return respond(v1Routes.react, { messageId: routed.message.id, runId: routed.runId, agent: routed.agent });
      },
      { params, conversation: "id" },
    ),

  // a plan outside the API user's conversations is "not found", checked by the service
  plan: (request, params) =>
    withApiToken(
      request,
      async (runtime) => respond(v1Routes.plan, await runtime.app.conversations.getPlan({ actor: apiActor(runtime), planId: params.id })),
      {
        params,
      },
    ),

  /** A step's detail: its input as rendered, the execution log (with model timings) and every run. */
  stepDetail: (request, params) =>
    withApiToken(
      request,
      async (runtime) => {
        // bounded by the column that holds it, like every integer from a URL
        const stepIndex = intParam(params.index, { name: "index", min: 1 });
        return respond(
          v1Routes.stepDetail,
          await runtime.app.conversations.getStepDetail({ actor: apiActor(runtime), planId: params.id, stepIndex }),
        );
      },
      { params },
    ),
};
