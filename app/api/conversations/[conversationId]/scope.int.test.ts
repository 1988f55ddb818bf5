/**
 * A plan or a form is addressed under its own conversation's URL. Under another
 * conversation's, even one the caller is a member of, it is "not found" before its body
 * is read (auth/guards.ts, answered by services/conversation-scope.ts through the
 * application); under its own, the request goes on to its body.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { browserRequest } from "@/server/auth/testing/accounts.ts";
import { createRouteHarness, type RouteHarness } from "@/server/http/testing/route-harness.ts";
import * as planRoute from "./plans/[planId]/route.ts";
import * as formRoute from "./forms/[formId]/route.ts";

let harness: RouteHarness;
let mine: string;
let elsewhere: string;

beforeAll(async () => {
  harness = await createRouteHarness();
  mine = harness.fixture.conversationId;
  const prisma = harness.fixture.db.prisma;
  elsewhere = (await prisma.conversation.create({ data: { title: "elsewhere" } })).id;
  // a member of both: membership is not what keeps the two apart
  await prisma.membership.create({ data: { conversationId: elsewhere, userId: harness.adminId } });
});
afterAll(() => harness?.close());

/** an answer's status and error message; a body the schema refuses is a 400 naming it */
async function outcome(response: Promise<Response>) {
  const settled = await response;
  const body = (await settled.json()) as { error?: { message?: string } };
  return { status: settled.status, message: body.error?.message };
}

it("a plan is not found under another conversation's URL, and reaches its body under its own", async () => {
  const plan = await harness.fixture.db.prisma.plan.create({
    data: { conversationId: elsewhere, title: "theirs", maxParallel: 1, request: "theirs" },
  });
  const control = (conversationId: string) =>
    planRoute.POST(
      browserRequest(`/api/conversations/${conversationId}/plans/${plan.id}`, { cookie: harness.cookie, body: { action: "nonsense" } }),
      { params: Promise.resolve({ conversationId, planId: plan.id }) },
    );
  expect(await outcome(control(mine))).toEqual({ status: 404, message: "No such plan." });
  expect((await outcome(control(elsewhere))).status).toBe(400);
});

it("a form is not found under another conversation's URL, and reaches its body under its own", async () => {
  const form = await harness.fixture.db.prisma.form.create({ data: { conversationId: elsewhere, title: "theirs", fields: [] } });
  const answer = (conversationId: string) =>
    formRoute.POST(
      browserRequest(`/api/conversations/${conversationId}/forms/${form.id}`, { cookie: harness.cookie, body: { values: "nonsense" } }),
      { params: Promise.resolve({ conversationId, formId: form.id }) },
    );
  expect(await outcome(answer(mine))).toEqual({ status: 404, message: "No such form." });
  expect((await outcome(answer(elsewhere))).status).toBe(400);
});
