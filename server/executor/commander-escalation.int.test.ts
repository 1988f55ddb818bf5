/**
 * The commander's escalation end to end (issue 45): the real OpenAI provider against the
 * loopback fake model server, the real agent runtime with the core's plan validator, run
 * by the executor. A chat reply whose plans are rejected three times, and a decision about
 * a failed step whose `decide` arguments are malformed twice, each get exactly one run on
 * the commander's escalation model; what the person sees says how it ended.
 */
import { afterAll, beforeAll, beforeEach, expect, it } from "vitest";
import { createExecutorFixture, type ExecutorFixture } from "./testing/executor-fixture.ts";
import {
  startFakeModelServer,
  type FakeModelServer,
  type RecordedRequest,
  type ScriptedTurn,
} from "../agents/testing/fake-model-server.ts";
import { testRuntime } from "../agents/testing/agent-fixture.ts";
import { testPlanValidator } from "./testing/offline-runtime.ts";
import { sleep } from "./testing/scripted-runner.ts";

(globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;

const AGENT_MODEL = "openai:gpt-agent";
const STRONG_MODEL = "openai:gpt-strong";

let server: FakeModelServer;
let fixture: ExecutorFixture;
let callIds = 0;

beforeAll(async () => {
  server = await startFakeModelServer();
  const runner = testRuntime({
    env: { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: server.baseURL },
    deps: { validatePlan: testPlanValidator() },
  }).runner;
  fixture = await createExecutorFixture({ createRunner: () => runner });
  await fixture.db.prisma.agent.updateMany({ data: { model: AGENT_MODEL } });
  await fixture.db.prisma.agent.updateMany({ where: { role: "commander" }, data: { escalationModel: STRONG_MODEL } });
  fixture.executor.agentsChanged();
});

afterAll(async () => {
  await fixture?.close();
  await server?.close();
});

beforeEach(() => server.reset());

const call = (name: string, args: string): ScriptedTurn => ({ kind: "tools", calls: [{ id: `call-${++callIds}`, name, args }] });
/** a plan the validator refuses: its only step goes to an agent not in the conversation */
const INVALID_PLAN = call("create_plan", JSON.stringify({ title: "P", steps: [{ index: 1, title: "a", assignee: "nobody", input: "x" }] }));
const VALID_PLAN = () =>
  call(
    "create_plan",
    JSON.stringify({
      title: "Fixed plan",
      steps: [
        {
          index: 1,
          title: "prices",
          assignee: "analyst",
          input: "Look up the seat prices of Initech and Umbrella and return a short table.",
        },
      ],
    }),
  );
const toolsOf = (request: RecordedRequest) =>
  ((request.body.tools ?? []) as { function: { name: string } }[]).map((tool) => tool.function.name);
const strong = (request: RecordedRequest) => request.body.model === "gpt-strong";
/** a step whose input says so fails for good on its own model: its failure goes to the commander */
const failsHere = (request: RecordedRequest) => JSON.stringify(request.body.messages).includes("fails here");
const FAILS_FOR_GOOD: ScriptedTurn = { kind: "error", status: 400, message: "bad request", errorType: "invalid_request_error" };
/** Which model each request asked for, in order. */
const modelsAsked = () => server.requests.map((request) => `openai:${String(request.body.model)}`);

/** Posts a message to the commander and waits until its last run has ended. */
async function ask(body: string, runsExpected: number) {
  const message = await fixture.say(body);
  let runs = await fixture.db.prisma.run.findMany({ where: { triggerMessageId: message.id }, orderBy: { attempt: "asc" } });
  for (let i = 0; i < 1_500 && runs.filter((run) => run.endedAt !== null).length < runsExpected; i++) {
    await sleep(20);
    runs = await fixture.db.prisma.run.findMany({ where: { triggerMessageId: message.id }, orderBy: { attempt: "asc" } });
  }
  await fixture.executor.idle();
  runs = await fixture.db.prisma.run.findMany({ where: { triggerMessageId: message.id }, orderBy: { attempt: "asc" } });
  const said = await fixture.db.prisma.message.findMany({
    where: { runId: { in: runs.map((run) => run.id) } },
    orderBy: { createdAt: "asc" },
    select: { kind: true, body: true },
  });
  return { runs, said };
}

it("plans rejected three times on both models: one escalated run, then a failure the person reads", async () => {
  server.respond(() => INVALID_PLAN);
  const { runs, said } = await ask("@commander compare Acme and Globex", 2);
  expect(runs.map((run) => [run.attempt, run.model, run.modelReason, run.status])).toEqual([
    [1, AGENT_MODEL, "agent", "failed"],
    [2, STRONG_MODEL, "escalation", "failed"],
  ]);
  expect(runs[0].error).toMatch(/^the plan was rejected 3 times: .*"nobody" is not in this conversation/s);
  // three proposals on the agent's model, three on the escalation model: exactly one escalated run
  expect(modelsAsked()).toEqual([...Array(3).fill(AGENT_MODEL), ...Array(3).fill(STRONG_MODEL)]);
  // no silent end: the failure that stuck is said once, after the escalation
  expect(said).toEqual([
    {
      kind: "error",
      body: expect.stringMatching(/^\*\*Failed:\*\* the plan was rejected 3 times: .*"nobody" is not in this conversation/s),
    },
  ]);
  expect(await fixture.db.prisma.plan.count({ where: { conversationId: fixture.conversationId } })).toBe(0);
}, 90_000);

it("plans rejected three times, then fixed by the escalation model: the plan runs", async () => {
  server.respond((request) => {
    if (!toolsOf(request).includes("create_plan")) return call("finish", JSON.stringify({ summary: "looked", files: [] }));
    return strong(request) ? VALID_PLAN() : INVALID_PLAN;
  });
  const { runs, said } = await ask("@commander compare Initech and Umbrella", 2);
  expect(runs.map((run) => [run.model, run.modelReason, run.status])).toEqual([
    [AGENT_MODEL, "agent", "failed"],
    [STRONG_MODEL, "escalation", "succeeded"],
  ]);
  expect(said).toEqual([{ kind: "plan", body: "Plan: **Fixed plan**" }]);
  // the escalated run's plan is the plan (its planning call counts toward it)
  expect(runs[1].planId).not.toBeNull();
  expect(await fixture.waitForPlan(runs[1].planId!)).toBe("completed");
  // one call of the strong model planned; the step ran on the analyst's own model
  expect(modelsAsked()).toEqual([...Array(3).fill(AGENT_MODEL), STRONG_MODEL, AGENT_MODEL]);
}, 90_000);

it("a decision with malformed arguments twice gets one run on the escalation model, whose decision applies", async () => {
  server.respond((request) => {
    const tools = toolsOf(request);
    if (tools.includes("decide"))
      return strong(request) ? call("decide", JSON.stringify({ kind: "skip", reason: "not needed" })) : call("decide", '{"kind": ');
    return failsHere(request) ? FAILS_FOR_GOOD : call("finish", JSON.stringify({ summary: "written", files: [] }));
  });
  const plan = await fixture.executor.submitPlan({
    conversationId: fixture.conversationId,
    raw: {
      title: "Decide",
      steps: [
        { index: 1, title: "work", assignee: "analyst", input: "this step fails here", on_failure: "ask_commander", max_retries: 0 },
        { index: 2, title: "write", assignee: "writer", input: "write it up", wait_for: [1] },
      ],
    },
  });
  // skipped, step 1 lets step 2 run; had the failed decision aborted the plan, it would be "failed"
  expect(await fixture.waitForPlan(plan.id, undefined, 60_000)).toBe("partial");
  const decisions = await fixture.db.prisma.run.findMany({ where: { planId: plan.id, kind: "decision" }, orderBy: { attempt: "asc" } });
  expect(decisions.map((run) => [run.attempt, run.model, run.modelReason, run.status])).toEqual([
    [1, AGENT_MODEL, "agent", "failed"],
    [2, STRONG_MODEL, "escalation", "succeeded"],
  ]);
  expect(decisions[0].error).toBe("the model sent malformed tool-call arguments 2 times");
  const step = await fixture.db.prisma.planStep.findFirstOrThrow({ where: { planId: plan.id, index: 1 } });
  expect(step.status).toBe("skipped");
  const logged = await fixture.db.prisma.stepEvent.findFirst({ where: { runId: decisions[1].id, phase: "model" } });
  expect(logged?.message).toBe(`the commander's decision escalated after malformed tool calls → ${STRONG_MODEL}`);
  // the first decision said nothing: only the escalated one's decision is posted
  const said = await fixture.db.prisma.message.findMany({ where: { runId: { in: decisions.map((run) => run.id) } } });
  expect(said.map((message) => [message.runId, message.kind])).toEqual([[decisions[1].id, "decision"]]);
}, 90_000);

it("an escalated decision that fails too aborts the plan: never a second escalation", async () => {
  server.respond((request) => (toolsOf(request).includes("decide") ? call("decide", '{"kind": ') : FAILS_FOR_GOOD));
  const plan = await fixture.executor.submitPlan({
    conversationId: fixture.conversationId,
    raw: { title: "Decide twice", steps: [{ index: 1, title: "work", assignee: "analyst", input: "hello again", max_retries: 0 }] },
  });
  expect(await fixture.waitForPlan(plan.id, undefined, 60_000)).toBe("failed");
  const decisions = await fixture.db.prisma.run.findMany({ where: { planId: plan.id, kind: "decision" }, orderBy: { attempt: "asc" } });
  expect(decisions.map((run) => [run.model, run.modelReason, run.status])).toEqual([
    [AGENT_MODEL, "agent", "failed"],
    [STRONG_MODEL, "escalation", "failed"],
  ]);
  const said = await fixture.db.prisma.message.findMany({ where: { runId: decisions[1].id } });
  expect(said.map((message) => message.body)).toEqual(["**Failed:** the model sent malformed tool-call arguments 2 times"]);
}, 90_000);
