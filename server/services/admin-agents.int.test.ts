/**
 * Disabling and deleting agents, through the application and the executor on a real
 * database: a disabled agent starts nothing (a mention gets a note, a plan step fails
 * with the reason, its queued runs are withdrawn) while its running runs finish; delete
 * is refused for the commander and while runs are live, and old messages keep their
 * author afterwards. Admins only.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { createExecutorFixture, type ExecutorFixture } from "../executor/testing/executor-fixture.ts";
import { ok } from "../executor/testing/scripted-runner.ts";
import { messageInclude, toMessageDTO } from "../adapters/prisma/serializers.ts";
import { hasErrorCode } from "../protocol/errors.ts";
import type { Actor } from "../access/actor.ts";

let fixture: ExecutorFixture;
let admin: Actor;
/** while set, a run of @writer waits for it to open */
let writerGate: { opened: Promise<void>; open: () => void } | null = null;

const gate = () => {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
};

beforeAll(async () => {
  fixture = await createExecutorFixture({
    script: async (request) => {
      if (request.agent.handle === "writer" && writerGate) await writerGate.opened;
      return ok(`done by @${request.agent.handle}`);
    },
  });
  admin = { id: fixture.userId, role: "admin" };
});
afterAll(() => fixture.close());

const agentId = async (handle: string) => (await fixture.db.prisma.agent.findUniqueOrThrow({ where: { handle } })).id;
const setEnabled = async (handle: string, enabled: boolean) =>
  fixture.app.admin.setAgentEnabled({ actor: admin, agentId: await agentId(handle), enabled });

async function until(check: () => Promise<boolean>, what: string) {
  for (let i = 0; i < 500; i++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`timed out waiting for ${what}`);
}

const runsOf = async (handle: string, where: object = {}) =>
  fixture.db.prisma.run.findMany({ where: { agent: { handle }, ...where }, orderBy: { createdAt: "asc" } });

it("only admins disable and delete, and never the commander", async () => {
  const member: Actor = { id: fixture.userId, role: "member" };
  await expect(fixture.app.admin.setAgentEnabled({ actor: member, agentId: await agentId("writer"), enabled: false })).rejects.toSatisfy(
    (error) => hasErrorCode(error, "forbidden"),
  );
  await expect(fixture.app.admin.deleteAgent({ actor: member, agentId: await agentId("writer") })).rejects.toSatisfy((error) =>
    hasErrorCode(error, "forbidden"),
  );
  await expect(setEnabled("commander", false)).rejects.toThrow(/@commander is the commander and cannot be disabled/);
  await expect(fixture.app.admin.deleteAgent({ actor: admin, agentId: await agentId("commander") })).rejects.toThrow(
    /@commander is the commander and cannot be deleted/,
  );
});

it("a model this server cannot run is refused naming its own field, and nothing is saved", async () => {
  const writer = await fixture.db.prisma.agent.findUniqueOrThrow({ where: { handle: "writer" } });
  const input = {
    handle: writer.handle,
    name: writer.name,
    role: "sub_agent" as const,
    description: writer.description,
    systemPrompt: writer.systemPrompt,
    model: writer.model,
    allowedTools: writer.allowedTools,
    skills: writer.skills,
    concurrency: writer.concurrency,
  };
  const update = (extra: object) => fixture.app.admin.updateAgent({ actor: admin, agentId: writer.id, input: { ...input, ...extra } });
  // the fixture's server has no provider keys
  await expect(update({ escalationModel: "anthropic:claude-opus" })).rejects.toThrow(/^escalationModel: .*ANTHROPIC_API_KEY/);
  await expect(update({ hedgeModel: "openai:gpt-fast" })).rejects.toThrow(/^hedgeModel: .*OPENAI_API_KEY/);
  await expect(update({ model: "cli:nope" })).rejects.toThrow(/^model: no command-line agent "nope"/);
  const after = await fixture.db.prisma.agent.findUniqueOrThrow({ where: { id: writer.id } });
  expect([after.model, after.hedgeModel, after.escalationModel]).toEqual([writer.model, writer.hedgeModel, writer.escalationModel]);
});

it("a mention of a disabled agent starts nothing and gets a note; enabled again, it answers", async () => {
  const disabled = await setEnabled("analyst", false);
  expect(disabled.disabledAt).not.toBeNull();
  expect((await fixture.app.conversations.listAgents()).map((agent) => agent.handle)).not.toContain("analyst");
  const message = await fixture.say("@analyst what do the numbers say?");
  await fixture.executor.idle();
  expect(await fixture.db.prisma.run.count({ where: { triggerMessageId: message.id } })).toBe(0);
  const note = await fixture.db.prisma.message.findFirst({
    where: { conversationId: fixture.conversationId, authorKind: "system", createdAt: { gte: new Date(message.createdAt) } },
  });
  expect(note?.body).toMatch(/^@analyst is disabled, so it will not answer/);

  expect((await setEnabled("analyst", true)).disabledAt).toBeNull();
  const again = await fixture.say("@analyst and now?");
  await fixture.executor.idle();
  expect(await fixture.db.prisma.run.count({ where: { triggerMessageId: again.id } })).toBe(1);
  const actions = await fixture.db.prisma.auditEvent.findMany({ where: { targetId: await agentId("analyst") }, select: { action: true } });
  expect(actions.map((row) => row.action)).toEqual(["agent.disabled", "agent.enabled"]);
});

it("a plan step for a disabled agent fails with the reason, under its on_failure", async () => {
  await setEnabled("analyst", false);
  const plan = await fixture.executor.submitPlan({
    conversationId: fixture.conversationId,
    raw: {
      title: "with a disabled agent",
      steps: [
        { index: 1, title: "gather", assignee: "researcher", input: "gather" },
        { index: 2, title: "analyse", assignee: "analyst", input: "analyse {{step_1.output_summary}}", on_failure: "continue" },
        { index: 3, title: "write", assignee: "writer", input: "write it up", wait_for: [2] },
      ],
    },
  });
  expect(await fixture.waitForPlan(plan.id)).toBe("partial");
  const steps = await fixture.db.prisma.planStep.findMany({ where: { planId: plan.id }, orderBy: { index: "asc" } });
  expect(steps.map((step) => step.status)).toEqual(["done", "failed", "done"]);
  expect(steps[1].failureReason).toBe("@analyst is disabled");
  expect(await fixture.db.prisma.run.count({ where: { planId: plan.id, agent: { handle: "analyst" } } })).toBe(0);
  await setEnabled("analyst", true);
});

it("disabling withdraws queued runs and lets running ones finish; delete waits until none is live", async () => {
  const writerId = await agentId("writer");
  await fixture.db.prisma.agent.update({ where: { id: writerId }, data: { concurrency: 1 } });
  fixture.executor.agentsChanged();
  writerGate = gate();
  const plan = await fixture.executor.submitPlan({
    conversationId: fixture.conversationId,
    raw: {
      title: "two drafts, one writer",
      steps: [
        { index: 1, title: "draft one", assignee: "writer", input: "draft one" },
        { index: 2, title: "draft two", assignee: "writer", input: "draft two", wait_for: [], on_failure: "continue" },
      ],
    },
  });
  await until(async () => (await runsOf("writer", { planId: plan.id, status: "running" })).length === 1, "one writer run running");
  expect(await runsOf("writer", { planId: plan.id, status: "queued" })).toHaveLength(1);

  await expect(fixture.app.admin.deleteAgent({ actor: admin, agentId: writerId })).rejects.toThrow(
    /@writer has 2 live runs \(queued, running or waiting for a form answer\): disable it/,
  );
  await setEnabled("writer", false);
  const [running] = await runsOf("writer", { planId: plan.id, status: "running" });
  expect(await runsOf("writer", { planId: plan.id, status: "queued" })).toHaveLength(0);
  const step2 = await fixture.db.prisma.planStep.findFirstOrThrow({ where: { planId: plan.id, index: 2 } });
  expect(step2).toMatchObject({ status: "failed", failureReason: "@writer is disabled" });
  await expect(fixture.app.admin.deleteAgent({ actor: admin, agentId: writerId })).rejects.toThrow(/@writer has 1 live run/);

  writerGate.open();
  writerGate = null;
  expect(await fixture.waitForPlan(plan.id)).toBe("partial");
  expect((await fixture.db.prisma.run.findUniqueOrThrow({ where: { id: running.id } })).status).toBe("succeeded");

  const written = await fixture.db.prisma.message.findFirstOrThrow({ where: { authorAgentId: writerId } });
  expect(await fixture.app.admin.deleteAgent({ actor: admin, agentId: writerId })).toEqual({ id: writerId, handle: "writer" });
  expect(await fixture.db.prisma.agent.findUnique({ where: { id: writerId } })).toBeNull();
  const kept = toMessageDTO(await fixture.db.prisma.message.findUniqueOrThrow({ where: { id: written.id }, include: messageInclude }));
  expect(kept.author).toMatchObject({ name: "Writer", handle: "writer" });
  const audit = await fixture.db.prisma.auditEvent.findFirstOrThrow({ where: { targetId: writerId, action: "agent.deleted" } });
  expect(audit.detail).toMatchObject({ handle: "writer" });
});
