/**
 * A secret form field, end to end with the real agent runtime and the offline model:
 * a blocked step asks for a secret, a person answers, the resumed run (and its model)
 * receive the value, and the value appears nowhere else — not in events, messages,
 * step rows, the execution log, the stored session, streamed text or API answers.
 * The whole database is dumped and searched.
 */
import { randomUUID } from "node:crypto";
import { wrapLanguageModel } from "ai";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createPrismaArtifactStore, createPrismaSessionStore } from "../adapters/prisma/agent-stores.ts";
import { listConversationEvents } from "../adapters/prisma/event-log.ts";
import { corePlanValidator } from "./core-plan-validator.ts";
import { createModelRegistry } from "./model-registry.ts";
import { createAgentRunner } from "./run-agent.ts";
import { SECRET_MASK } from "../core/form-schema.ts";
import type { Database } from "../db/database.ts";
import type { AgentRunner, RunRequest } from "../ports/executor.ts";
import { createExecutorFixture, TEST_EXECUTOR_CONFIG, type ExecutorFixture } from "../executor/testing/executor-fixture.ts";

const SECRET = `hunter2-${randomUUID()}`;
let fixture: ExecutorFixture;
const requests: RunRequest[] = [];
const prompts: string[] = [];

/** The real runtime, recording what each run was given and what its model was sent. */
function recordingRunner(db: Database): AgentRunner {
  const registry = createModelRegistry({ env: {} });
  const runner = createAgentRunner({
    models: {
      resolve: (id) =>
        wrapLanguageModel({
          model: registry.resolve(id),
          middleware: {
            specificationVersion: "v3",
            transformParams: async ({ params }) => {
              prompts.push(JSON.stringify(params.prompt));
              return params;
            },
          },
        }),
      cost: (id, usage) => registry.cost(id, usage),
      contextBudget: (id) => registry.contextBudget(id),
      isSimulated: (id) => registry.isSimulated(id),
    },
    artifacts: createPrismaArtifactStore(db.prisma),
    sessions: createPrismaSessionStore(db.prisma),
    validatePlan: corePlanValidator(TEST_EXECUTOR_CONFIG.planLimits),
  });
  return { run: (request, sink) => (requests.push(request), runner.run(request, sink)) };
}

/** Every row of every table, as text. */
async function dumpDatabase(db: Database): Promise<string> {
  const tables = await db.prisma.$queryRaw<{ name: string }[]>`
    SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'`;
  const parts: string[] = [];
  for (const { name } of tables) {
    const rows = await db.prisma.$queryRawUnsafe<{ row: string }[]>(`SELECT row_to_json(t)::text AS row FROM "${name}" t`);
    parts.push(`-- ${name}\n${rows.map((r) => r.row).join("\n")}`);
  }
  expect(tables.length).toBeGreaterThan(5);
  return parts.join("\n");
}

beforeAll(async () => {
  fixture = await createExecutorFixture({ createRunner: recordingRunner });
});

const member = () => ({ id: fixture.userId, role: "member" as const });

afterAll(async () => {
  await fixture?.close();
});

it("a secret answer reaches only the asking run, masked everywhere else", async () => {
  const plan = await fixture.executor.submitPlan({
    conversationId: fixture.conversationId,
    raw: {
      title: "Deploy with a token",
      steps: [
        { index: 1, title: "Deploy", assignee: "researcher", input: "@offline block=secret\nDeploy the billing service" },
        { index: 2, title: "Report", assignee: "writer", input: "Report on: {{step_1.output_summary}}" },
      ],
    },
  });
  expect(await fixture.waitForPlan(plan.id, ["paused"])).toBe("paused");
  const form = await fixture.db.prisma.form.findFirstOrThrow({ where: { planId: plan.id } });
  const [field] = form.fields as { name: string; secret?: boolean }[];
  expect(field.secret).toBe(true);

  const answered = await fixture.app.forms.answerForm({ formId: form.id, userId: fixture.userId, values: { [field.name]: SECRET } });
  // the answer returned to the person (and broadcast) is masked
  expect(answered.answer?.values[field.name]).toBe(SECRET_MASK);
  expect(await fixture.waitForPlan(plan.id)).toBe("completed");

  // the asking run received the value, and so did its model
  const resumed = requests.find((request) => request.resume !== undefined);
  expect(resumed?.resume?.answer).toContain(SECRET);
  expect(prompts.some((prompt) => prompt.includes(SECRET))).toBe(true);
  // no other run did
  expect(requests.filter((request) => JSON.stringify(request).includes(SECRET))).toEqual([resumed]);

  // the step's summary says a secret was given, not what it was
  const steps = await fixture.db.prisma.planStep.findMany({ where: { planId: plan.id }, orderBy: { index: "asc" } });
  expect(steps[0].outputSummary).toContain(SECRET_MASK);

  // nowhere else: events (live and stored), streamed text, API answers, the whole database
  expect(JSON.stringify(fixture.published)).not.toContain(SECRET);
  expect(fixture.deltas.join("")).not.toContain(SECRET);
  const api = [
    await fixture.services.getSnapshot({ actor: member(), conversationId: fixture.conversationId }),
    await fixture.services.getPlan({ actor: member(), planId: plan.id }),
    await fixture.services.getStepDetail({ actor: member(), planId: plan.id, stepIndex: 1 }),
    await fixture.services.getStepDetail({ actor: member(), planId: plan.id, stepIndex: 2 }),
    await listConversationEvents(fixture.db.prisma, { conversationId: fixture.conversationId, afterSeq: 0 }),
  ];
  expect(JSON.stringify(api)).toContain(SECRET_MASK);
  expect(JSON.stringify(api)).not.toContain(SECRET);
  const dump = await dumpDatabase(fixture.db);
  expect(dump).toContain(SECRET_MASK);
  expect(dump).not.toContain(SECRET);
});

it("a person's direct mention that asks for a secret resumes with it, masked everywhere else", async () => {
  const secret = `mention-${randomUUID()}`;
  const before = requests.length;
  await fixture.app.messages.postMessage({
    conversationId: fixture.conversationId,
    author: { kind: "user", userId: fixture.userId },
    body: "@researcher rotate the key\n@offline block=secret",
    mentionHandles: ["researcher"],
  });
  await fixture.executor.idle();
  const form = await fixture.db.prisma.form.findFirstOrThrow({
    where: { conversationId: fixture.conversationId, planId: null, status: "open" },
  });
  const [field] = form.fields as { name: string; secret?: boolean }[];
  expect(field.secret).toBe(true);
  await fixture.app.forms.answerForm({ formId: form.id, userId: fixture.userId, values: { [field.name]: secret } });
  await fixture.executor.idle();
  for (let i = 0; i < 200 && !(await fixture.db.prisma.run.findFirst({ where: { resumesRunId: form.runId, status: "succeeded" } })); i++) {
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  const resumed = requests.slice(before).find((request) => request.resume !== undefined);
  expect(resumed?.resume?.answer).toContain(secret);
  expect(await fixture.db.prisma.run.findFirst({ where: { resumesRunId: form.runId, status: "succeeded" } })).not.toBeNull();

  expect(JSON.stringify(fixture.published)).not.toContain(secret);
  expect(fixture.deltas.join("")).not.toContain(secret);
  expect(JSON.stringify(await fixture.services.getSnapshot({ actor: member(), conversationId: fixture.conversationId }))).not.toContain(
    secret,
  );
  const dump = await dumpDatabase(fixture.db);
  expect(dump).not.toContain(secret);
});
