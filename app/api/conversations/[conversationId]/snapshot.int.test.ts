/**
 * The snapshot a browser opens a conversation with stays bounded as the conversation
 * grows: every plan, but only the steps of those still going, the newest and those the
 * newest messages belong to; only the runs not ended, with what the ended ones cost
 * summed by the database. An ended plan's steps are read when someone opens it. Through
 * the real route handlers, on PGlite and on PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { browserRequest, signUp, signUpInvited, type TestAccount } from "@/server/auth/testing/accounts.ts";
import { loadConfig } from "@/server/config/config.ts";
import { ENDED_RUN_STATUSES } from "@/server/core/status.ts";
import { postgresAvailable } from "@/server/db/testing/test-database.ts";
import { createExecutorFixture, type ExecutorFixture } from "@/server/executor/testing/executor-fixture.ts";
import { ok } from "@/server/executor/testing/scripted-runner.ts";
import type { PlanDTO } from "@/server/protocol/dto.ts";
import type { Snapshot } from "@/server/protocol/rest/conversations.ts";
import { SNAPSHOT_MESSAGES } from "@/server/protocol/limits.ts";
import { setRuntime } from "@/server/runtime.ts";
import { API_USER_EMAIL } from "@/server/access/actor.ts";
import * as conversationRoute from "./route.ts";
import * as planRoute from "./plans/[planId]/route.ts";
import * as messagesRoute from "./messages/route.ts";

const pgUp = await postgresAvailable();
if (!pgUp) console.warn("PostgreSQL at 127.0.0.1:5432 is unreachable: skipping the postgres snapshot tests");

const params = <T extends Record<string, string>>(values: T) => ({ params: Promise.resolve(values) });
const USAGE = { tokensIn: 7, tokensOut: 3, cost: 0.25 };

function suite(kind: "embedded" | "postgres") {
  let fixture: ExecutorFixture;
  let ann: TestAccount;
  let carol: TestAccount;
  let conversationId: string;
  let carols: string;
  let release: () => void = () => {};
  const held = new Promise<void>((resolve) => (release = resolve));

  const snapshotOf = async (as: TestAccount) => {
    const response = await conversationRoute.GET(
      browserRequest(`/api/conversations/${conversationId}`, { cookie: as.cookie }),
      params({ conversationId }),
    );
    expect(response.status).toBe(200);
    return (await response.json()) as Snapshot;
  };
  const readPlan = (as: TestAccount | null, inConversation: string, planId: string) =>
    planRoute.GET(
      browserRequest(`/api/conversations/${inConversation}/plans/${planId}`, { cookie: as?.cookie }),
      params({ conversationId: inConversation, planId }),
    );
  const submit = async (title: string, inputs: string[]) => {
    const plan = await fixture.executor.submitPlan({
      conversationId,
      userId: ann.id,
      // the held step has an agent of its own, so that it does not take the researcher's one slot
      raw: {
        title,
        steps: inputs.map((input, i) => ({
          index: i + 1,
          title: `${title} ${i + 1}`,
          assignee: input.includes("hold") ? "analyst" : "researcher",
          input,
        })),
      },
    });
    return plan.id;
  };
  /** the plan's status once it ended (the fixture's waitForPlan also waits for the held run) */
  const ended = async (planId: string) => {
    for (let tries = 0; tries < 2_000; tries++) {
      const { status } = await fixture.db.prisma.plan.findUniqueOrThrow({ where: { id: planId }, select: { status: true } });
      if (status !== "running" && status !== "paused") return status;
      await new Promise((resolve) => setTimeout(resolve, 15));
    }
    throw new Error(`plan ${planId} did not end`);
  };
  /** the database's own sums over the conversation's ended runs, to hold the snapshot's to */
  const endedRuns = () =>
    fixture.db.prisma.run.findMany({
      where: { conversationId, status: { in: [...ENDED_RUN_STATUSES] } },
      select: { planId: true, tokensIn: true, tokensOut: true, cost: true },
    });

  beforeAll(async () => {
    fixture = await createExecutorFixture({
      kind,
      script: async (request) => {
        // the analyst works only on the held step (an input may quote the conversation, so it is no guide)
        if (request.agent.handle === "analyst") await held;
        return ok(`done: ${request.input}`, { usage: USAGE });
      },
    });
    const apiUser = await fixture.db.prisma.user.findUniqueOrThrow({ where: { email: API_USER_EMAIL } });
    setRuntime({
      config: loadConfig({}),
      prisma: fixture.db.prisma,
      sql: fixture.db.sql,
      app: fixture.app,
      apiUserId: apiUser.id,
    });
    ann = await signUp(fixture.db.prisma, { name: "Ann" });
    carol = await signUpInvited(fixture.db.prisma, { id: ann.id }, "Carol");
    conversationId = (await fixture.services.createConversation({ title: "Long", agentHandles: ["researcher", "analyst"], userId: ann.id }))
      .id;
    carols = (await fixture.services.createConversation({ title: "Carol's", agentHandles: [], userId: carol.id })).id;
  }, 120_000);

  afterAll(async () => {
    release();
    await fixture?.executor.idle();
    await fixture?.close();
  });

  it("sends the steps a reader sees first, the runs still going, and the ended runs' cost as sums", async () => {
    // an ended plan, then one still running, both pushed out of the newest messages
    const old = await submit("Old", ["a", "b"]);
    expect(await ended(old)).toBe("completed");
    const live = await submit("Live", ["hold on", "quick"]);
    // made after both plans' messages and before the next plan's (a moment apart on either side)
    const pause = () => new Promise((resolve) => setTimeout(resolve, 5));
    await pause();
    const at = new Date();
    await fixture.db.prisma.message.createMany({
      data: Array.from({ length: SNAPSHOT_MESSAGES + 10 }, (_, i) => ({
        conversationId,
        authorKind: "user" as const,
        authorUserId: ann.id,
        body: `note ${i}`,
        createdAt: at,
      })),
    });
    await pause();
    // ended plans whose messages are among the newest; the newer of them is the newest plan
    const recent = await submit("Recent", ["c"]);
    expect(await ended(recent)).toBe("completed");
    const newest = await submit("Newest", ["d", "e", "f"]);
    expect(await ended(newest)).toBe("completed");

    const snapshot = await snapshotOf(ann);
    expect(snapshot.plans.map((plan) => plan.id)).toEqual([old, live, recent, newest]);
    const stepsOf = (planId: string) => snapshot.plans.find((plan) => plan.id === planId)!.steps;
    expect(stepsOf(old)).toBeNull();
    expect(stepsOf(live)?.map((step) => step.title)).toEqual(["Live 1", "Live 2"]);
    expect(stepsOf(recent)).toHaveLength(1);
    expect(stepsOf(newest)?.map((step) => step.status)).toEqual(["done", "done", "done"]);

    // runs: only the one still going; every ended run is in the sums, once
    expect(snapshot.runs.map((run) => [run.planId, run.stepIndex, run.status])).toEqual([[live, 1, "running"]]);
    const runs = await endedRuns();
    expect(runs.length).toBe(6);
    const sum = (list: typeof runs) => ({
      tokens: list.reduce((total, run) => total + run.tokensIn + run.tokensOut, 0),
      cost: list.reduce((total, run) => total + run.cost, 0),
      runs: list.length,
      estimated: false,
    });
    expect(snapshot.endedUsage.total).toEqual({ ...sum(runs), cost: expect.closeTo(sum(runs).cost, 9) });
    for (const planId of [old, recent, newest]) {
      const own = sum(runs.filter((run) => run.planId === planId));
      expect(snapshot.endedUsage.byPlan[planId]).toEqual({ ...own, cost: expect.closeTo(own.cost, 9) });
    }
    expect(snapshot.endedUsage.byPlan[old]).toMatchObject({ tokens: 20, runs: 2 });
    expect(snapshot.endedUsage.byPlan[live]).toBeUndefined();

    // once the running plan ends its runs are summed; its last messages are now among the newest, so its steps still come
    release();
    expect(await ended(live)).toBe("completed");
    await fixture.executor.idle();
    const after = await snapshotOf(ann);
    expect(after.runs).toEqual([]);
    expect(after.plans.find((plan) => plan.id === live)!.steps?.map((step) => step.status)).toEqual(["done", "done"]);
    expect(after.plans.find((plan) => plan.id === old)!.steps).toBeNull();
    expect(after.endedUsage.byPlan[live]).toMatchObject({ tokens: 20, runs: 2 });
    expect(after.endedUsage.total.runs).toBe(snapshot.endedUsage.total.runs + 2);
  });

  it("reads an ended plan's steps for members only, and only through its own conversation", async () => {
    const snapshot = await snapshotOf(ann);
    const old = snapshot.plans.find((plan) => plan.title === "Old")!;
    const response = await readPlan(ann, conversationId, old.id);
    expect(response.status).toBe(200);
    const { plan } = (await response.json()) as { plan: PlanDTO };
    expect(plan).toMatchObject({ id: old.id, status: "completed" });
    expect(plan.steps.map((step) => [step.index, step.title, step.status])).toEqual([
      [1, "Old 1", "done"],
      [2, "Old 2", "done"],
    ]);
    expect((await readPlan(carol, conversationId, old.id)).status).toBe(404);
    expect((await readPlan(null, conversationId, old.id)).status).toBe(401);
    // Carol's own conversation does not lend her a way to another's plan
    expect((await readPlan(carol, carols, old.id)).status).toBe(404);
    expect((await readPlan(ann, conversationId, "no-such-plan")).status).toBe(404);
  });

  it("sends the forms still open and those of the newest messages; a page of earlier messages brings its own", async () => {
    const old = (await snapshotOf(ann)).plans.find((plan) => plan.title === "Old")!;
    const oldStep = await fixture.db.prisma.planStep.findFirstOrThrow({ where: { planId: old.id, index: 2 } });
    // after every message so far, a second apart: two old forms, then a page's worth of messages, then a recent form
    const start = Date.now() + 60_000;
    const at = (seconds: number) => new Date(start + seconds * 1_000);
    const ask = async (title: string, status: "open" | "answered", seconds: number, step?: { id: string; planId: string }) => {
      const form = await fixture.db.prisma.form.create({
        data: { conversationId, title, fields: [], status, planId: step?.planId, stepId: step?.id },
      });
      await fixture.db.prisma.message.create({
        data: { conversationId, authorKind: "system", kind: "form", body: title, formId: form.id, createdAt: at(seconds) },
      });
      return form.id;
    };
    const answered = await ask("Answered long ago", "answered", 1, oldStep);
    const waiting = await ask("Still waiting", "open", 2);
    await fixture.db.prisma.message.createMany({
      data: Array.from({ length: SNAPSHOT_MESSAGES }, (_, i) => ({
        conversationId,
        authorKind: "user" as const,
        authorUserId: ann.id,
        body: `later ${i}`,
        createdAt: at(3),
      })),
    });
    const recent = await ask("Answered just now", "answered", 4);

    const snapshot = await snapshotOf(ann);
    expect(snapshot.messages.map((message) => message.formId)).not.toContain(answered);
    expect(snapshot.forms.map((form) => form.id).sort()).toEqual([waiting, recent].sort());

    // paging back reaches the old form's message, and the page carries the form with its step's index
    let before = snapshot.messages[0].id;
    let found: Snapshot["forms"] = [];
    for (let pages = 0; pages < 10 && found.length === 0; pages++) {
      const response = await messagesRoute.GET(
        browserRequest(`/api/conversations/${conversationId}/messages?before=${before}`, { cookie: ann.cookie }),
        params({ conversationId }),
      );
      expect(response.status).toBe(200);
      const page = (await response.json()) as { messages: Snapshot["messages"]; forms: Snapshot["forms"] };
      const shownForms = new Set(page.messages.flatMap((message) => (message.formId ? [message.formId] : [])));
      // a page brings exactly the forms its messages show
      expect(page.forms.map((form) => form.id).sort()).toEqual([...shownForms].sort());
      found = page.forms.filter((form) => form.id === answered);
      before = page.messages[0].id;
    }
    expect(found).toEqual([expect.objectContaining({ id: answered, status: "answered", planId: old.id, stepIndex: 2 })]);
  });
}

describe("conversation snapshot on PGlite", () => suite("embedded"));
describe.skipIf(!pgUp)("conversation snapshot on PostgreSQL", () => suite("postgres"));
