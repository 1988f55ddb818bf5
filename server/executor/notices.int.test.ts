/**
 * Text the server writes into a conversation is stored with its notice (core/notices.ts)
 * through the normal write paths, on both databases: a plan's closing message (the
 * batched statement, `baton_write_units`), a reply with nothing to add (a run's result),
 * and the note about a disabled agent (a person's message unit). The body stays the
 * English it was; the DTO and the stored live event carry the notice.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postgresAvailable } from "../db/testing/test-database.ts";
import { createExecutorFixture, type ExecutorFixture } from "./testing/executor-fixture.ts";
import { ok } from "./testing/scripted-runner.ts";
import { rawStep as step } from "./testing/file-fixture.ts";
import { notices } from "../core/notices.ts";
import { Prisma } from "../generated/prisma/client.ts";
import { messageInclude, toMessageDTO } from "../adapters/prisma/serializers.ts";

const pgUp = await postgresAvailable();

describe.each([
  { kind: "embedded" as const, run: true },
  { kind: "postgres" as const, run: pgUp },
])("notices on $kind", ({ kind, run }) => {
  let fixture: ExecutorFixture;
  beforeAll(async () => {
    if (!run) return;
    fixture = await createExecutorFixture({
      kind,
      script: (request) => {
        // what the runtime reports for a chat reply with no text (agents/run-finish.ts)
        if (request.purpose.kind === "commander-chat") {
          const silent = notices.nothingToAdd([]);
          return ok("", { text: silent.body, notice: silent.notice });
        }
        return ok(`done by @${request.agent.handle}`);
      },
    });
  });
  afterAll(() => fixture?.close());

  const stored = (where: object) =>
    fixture.db.prisma.message.findFirstOrThrow({ where: { conversationId: fixture.conversationId, ...where }, include: messageInclude });

  it.runIf(run)("a submitted plan's announcement and its closing message", async () => {
    const plan = await fixture.executor.submitPlan({
      conversationId: fixture.conversationId,
      raw: { title: "Notice <b>me</b>", steps: [step(1, "researcher", "a"), step(2, "analyst", "b")] },
    });
    expect(await fixture.waitForPlan(plan.id)).toBe("completed");
    const submitted = await stored({ planId: plan.id, kind: "plan" });
    expect(submitted.body).toBe("Plan **Notice <b>me</b>** submitted (2 steps)");
    expect(submitted.notice).toEqual({ key: "planSubmitted", values: { title: "Notice <b>me</b>", steps: 2 } });

    const closing = await stored({ planId: plan.id, kind: "outcome" });
    expect(closing.body).toBe("**Notice <b>me</b>** completed: 2 of 2 steps done.\n\nThe answer is above: step 2 (Step 2).");
    const notice = {
      key: "planEnded",
      values: { status: "completed", title: "Notice <b>me</b>", done: 2, total: 2 },
      more: [
        {
          key: "planDelivered",
          values: { what: "answer" },
          list: { join: "comma", items: [{ key: "planDeliveredStep", values: { index: 2, title: "Step 2" } }] },
        },
      ],
    };
    expect(closing.notice).toEqual(notice);
    // what REST hands out and what the live event (and a replay) carried
    expect(toMessageDTO(closing).notice).toEqual(notice);
    const event = await fixture.db.prisma.conversationEvent.findFirstOrThrow({
      where: { conversationId: fixture.conversationId, type: "message-created", payload: { path: ["message", "id"], equals: closing.id } },
    });
    expect((event.payload as { message: { notice: unknown } }).message.notice).toEqual(notice);
    // the steps' own answers are the agents' words: no notice (a NULL column, not JSON null)
    expect((await stored({ planId: plan.id, kind: "result" })).notice).toBeNull();
    expect(await fixture.db.prisma.message.count({ where: { planId: plan.id, kind: "result", notice: { equals: Prisma.DbNull } } })).toBe(
      2,
    );
  });

  it.runIf(run)("a reply with nothing to add", async () => {
    const asked = await fixture.say("@commander anything new?");
    expect(asked.notice).toBeNull();
    await fixture.executor.idle();
    const reply = await stored({ authorKind: "agent", createdAt: { gt: new Date(asked.createdAt) }, planId: null });
    expect(reply.body).toBe("I have nothing to add to this.");
    expect(reply.notice).toEqual({ key: "nothingToAdd", values: {} });
  });

  it.runIf(run)("a mention of a disabled agent", async () => {
    const analyst = await fixture.db.prisma.agent.findUniqueOrThrow({ where: { handle: "analyst" } });
    await fixture.app.admin.setAgentEnabled({ actor: { id: fixture.userId, role: "admin" }, agentId: analyst.id, enabled: false });
    const asked = await fixture.say("@analyst what do the numbers say?");
    await fixture.executor.idle();
    const note = await stored({ authorKind: "system", createdAt: { gte: new Date(asked.createdAt) } });
    expect(note.body).toBe("@analyst is disabled, so it will not answer. An admin can enable it again in Admin → Agents.");
    expect(note.notice).toEqual({ key: "agentDisabled", values: { handle: "analyst" } });
  });
});
