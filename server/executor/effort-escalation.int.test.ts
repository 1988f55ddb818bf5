/**
 * Effort levels and escalation end to end (core/run-model.ts, run-model-choice.ts):
 * the real OpenAI provider against the loopback fake model server, run by the
 * executor. A deep step runs on the model the admin mapped deep to; a step whose
 * model sends malformed tool-call arguments twice gets exactly one run on the
 * agent's escalation model, which completes it.
 */
import { afterAll, beforeAll, beforeEach, expect, it } from "vitest";
import { createExecutorFixture, type ExecutorFixture } from "./testing/executor-fixture.ts";
import { startFakeModelServer, type FakeModelServer, type ScriptedTurn } from "../agents/testing/fake-model-server.ts";
import { testRuntime } from "../agents/testing/agent-fixture.ts";
import { writeEffortModels } from "../adapters/prisma/workspace-settings.ts";

(globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;

const AGENT_MODEL = "openai:gpt-agent";
const DEEP_MODEL = "openai:gpt-deep";
const STRONG_MODEL = "openai:gpt-strong";

const finished = (summary: string): ScriptedTurn => ({
  kind: "tools",
  calls: [{ id: "call-finish", name: "finish", args: JSON.stringify({ summary, files: [] }) }],
});
/** arguments no JSON parser accepts */
const MALFORMED: ScriptedTurn = { kind: "tools", calls: [{ id: "call-bad", name: "finish", args: '{"summary": ' }] };

let server: FakeModelServer;
let fixture: ExecutorFixture;

beforeAll(async () => {
  server = await startFakeModelServer();
  const runner = testRuntime({ env: { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: server.baseURL } }).runner;
  fixture = await createExecutorFixture({ createRunner: () => runner });
  await fixture.db.prisma.agent.updateMany({ data: { model: AGENT_MODEL } });
  await writeEffortModels(fixture.db.prisma, { deep: DEEP_MODEL });
  fixture.executor.agentsChanged();
});

afterAll(async () => {
  await fixture?.close();
  await server?.close();
});

beforeEach(() => server.reset());

/** Which model each request asked for, in order. */
const modelsAsked = () => server.requests.map((request) => `openai:${String(request.body.model)}`);

async function runStep(title: string, step: Record<string, unknown>) {
  const plan = await fixture.executor.submitPlan({
    conversationId: fixture.conversationId,
    raw: { title, steps: [{ index: 1, title: "work", assignee: "analyst", input: "hello", on_failure: "abort_plan", ...step }] },
  });
  const status = await fixture.waitForPlan(plan.id, undefined, 60_000);
  const stepRow = await fixture.db.prisma.planStep.findFirstOrThrow({ where: { planId: plan.id } });
  const runs = await fixture.db.prisma.run.findMany({ where: { stepId: stepRow.id }, orderBy: { attempt: "asc" } });
  return { status, step: stepRow, runs };
}

it("a deep step runs on the model the admin mapped deep to, and says why", async () => {
  server.respond(() => finished("deep thoughts"));
  const { status, step, runs } = await runStep("Deep", { effort: "deep" });
  expect(status).toBe("completed");
  expect(step.effort).toBe("deep");
  expect(runs.map((run) => [run.model, run.modelReason, run.status])).toEqual([[DEEP_MODEL, "effort:deep", "succeeded"]]);
  expect(modelsAsked()).toEqual([DEEP_MODEL]);
  const logged = await fixture.db.prisma.stepEvent.findFirst({ where: { runId: runs[0].id, phase: "model" } });
  expect(logged?.message).toBe(`deep effort → ${DEEP_MODEL}`);
}, 90_000);

it("a standard step and an unmapped light step run on the agent's own model", async () => {
  server.respond(() => finished("plain"));
  const light = await runStep("Light", { effort: "light" });
  expect(light.runs.map((run) => [run.model, run.modelReason])).toEqual([[AGENT_MODEL, "agent"]]);
  const standard = await runStep("Standard", {});
  expect(standard.step.effort).toBeNull();
  expect(standard.runs.map((run) => [run.model, run.modelReason])).toEqual([[AGENT_MODEL, "agent"]]);
}, 90_000);

it("malformed tool arguments twice: exactly one escalated run, which completes the step", async () => {
  await fixture.db.prisma.agent.updateMany({ where: { handle: "analyst" }, data: { escalationModel: STRONG_MODEL } });
  fixture.executor.agentsChanged();
  server.respond((request) => (request.body.model === "gpt-strong" ? finished("fixed by the stronger model") : MALFORMED));
  // no retries: the escalation is not a retry, it spends none
  const { status, step, runs } = await runStep("Escalate", { max_retries: 0 });
  expect(status).toBe("completed");
  expect(runs.map((run) => [run.attempt, run.model, run.modelReason, run.status])).toEqual([
    [1, AGENT_MODEL, "agent", "failed"],
    [2, STRONG_MODEL, "escalation", "succeeded"],
  ]);
  expect(runs[0].error).toBe("the model sent malformed tool-call arguments 2 times");
  // the own model was asked twice (both malformed), the escalation model once
  expect(modelsAsked()).toEqual([AGENT_MODEL, AGENT_MODEL, STRONG_MODEL]);
  expect(step).toMatchObject({
    escalatedAttempt: 2,
    escalationCause: "malformed-tool-calls",
    outputSummary: "fixed by the stronger model",
  });
  const logged = await fixture.db.prisma.stepEvent.findFirst({ where: { runId: runs[1].id, phase: "model" } });
  expect(logged?.message).toBe(`escalated after malformed tool calls → ${STRONG_MODEL}`);
  // nobody decided the second attempt: it goes out under the first hand-off, not a new message
  expect(runs[1].triggerMessageId).toBe(runs[0].triggerMessageId);
  expect(await fixture.db.prisma.message.count({ where: { stepId: runs[0].stepId, kind: "dispatch" } })).toBe(1);
}, 90_000);

it("an escalated run that fails too is the step's failure: never a second escalation", async () => {
  server.respond(() => MALFORMED);
  const { status, runs } = await runStep("Escalate twice", { max_retries: 0 });
  expect(status).toBe("failed");
  expect(runs.map((run) => [run.model, run.modelReason, run.status])).toEqual([
    [AGENT_MODEL, "agent", "failed"],
    [STRONG_MODEL, "escalation", "failed"],
  ]);
}, 90_000);

it("without an escalation model a malformed run fails the step as before", async () => {
  await fixture.db.prisma.agent.updateMany({ where: { handle: "analyst" }, data: { escalationModel: null } });
  fixture.executor.agentsChanged();
  server.respond(() => MALFORMED);
  const { status, step, runs } = await runStep("No escalation", { max_retries: 0 });
  expect(status).toBe("failed");
  expect(runs).toHaveLength(1);
  expect(step.escalatedAttempt).toBeNull();
}, 90_000);

it("a refusal by the content filter escalates too, a step's and a reply's alike", async () => {
  await fixture.db.prisma.agent.updateMany({ where: { handle: "analyst" }, data: { escalationModel: STRONG_MODEL } });
  fixture.executor.agentsChanged();
  server.respond((request) =>
    request.body.model === "gpt-strong" ? finished("answered by the stronger model") : { kind: "text", text: "", refused: true },
  );
  const { status, step, runs } = await runStep("Refused", { max_retries: 0 });
  expect(status).toBe("completed");
  expect(runs.map((run) => [run.model, run.modelReason, run.status])).toEqual([
    [AGENT_MODEL, "agent", "failed"],
    [STRONG_MODEL, "escalation", "succeeded"],
  ]);
  expect(runs[0].error).toBe("the provider's content filter refused the model's output");
  expect(step.escalationCause).toBe("refused");

  // a mention is a reply: its one escalated run answers the message
  const message = await fixture.say("@analyst hello");
  let replies: { model: string; modelReason: string; status: string }[] = [];
  for (let i = 0; i < 1_500 && !replies.some((run) => run.status === "succeeded"); i++) {
    replies = await fixture.db.prisma.run.findMany({ where: { triggerMessageId: message.id }, orderBy: { attempt: "asc" } });
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  expect(replies.map((run) => [run.model, run.modelReason, run.status])).toEqual([
    [AGENT_MODEL, "agent", "failed"],
    [STRONG_MODEL, "escalation", "succeeded"],
  ]);
}, 90_000);

it("the bill breaks usage down by why each run was on its model", async () => {
  const usage = await fixture.app.admin.usage({ actor: { id: fixture.userId, role: "admin" } });
  const reasons = usage.byReason.map((row) => row.key).sort();
  expect(reasons).toEqual(["agent", "effort:deep", "escalation"]);
  const runsByReason = await fixture.db.prisma.run.groupBy({ by: ["modelReason"], _count: true });
  for (const row of usage.byReason) {
    expect(row.runs).toBe(runsByReason.find((group) => group.modelReason === row.key)?._count);
  }
});
