/**
 * Outcomes say what happened (issue 8): quiet retries, the commander's closing
 * message, and decisions in chat that match what was applied.
 */
import { describe, expect, it } from "vitest";
import { rawStep as step, executorFixtureForFile } from "./testing/file-fixture.ts";
import { directiveScript } from "./testing/directive-script.ts";
import { ok, type Script } from "./testing/scripted-runner.ts";

/** decision runs wait for this gate when a test sets it */
let decisionGate: Promise<void> | null = null;
/** steps whose input says `hold` wait for this gate when a test sets it (they keep their plan running) */
let holdGate: Promise<void> | null = null;

const stopped = (signal: AbortSignal) => new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));

/** the directive script, but the commander reads `decision=` in the failed step's input too (as the offline model does) */
const gatedScript: Script = async (request, call) => {
  if (request.step && request.input.includes("hold") && holdGate) await holdGate;
  if (request.purpose.kind === "commander-decision") {
    // a stopped run's model call is aborted, as a real one is
    if (decisionGate) await Promise.race([decisionGate, stopped(request.signal)]);
    const { failedStep } = request.purpose;
    const wanted = /decision=(retry|skip|abort)/.exec(`${failedStep.failureReason} ${failedStep.input}`)?.[1] ?? "skip";
    return ok(`Decision: ${wanted}`, { decision: { kind: wanted } });
  }
  return directiveScript(request, call);
};

const fixture = executorFixtureForFile({ script: gatedScript });

const messages = (planId: string, kind?: "error" | "outcome" | "decision") =>
  fixture.db.prisma.message.findMany({ where: { planId, ...(kind ? { kind } : {}) }, orderBy: { createdAt: "asc" } });

async function until(condition: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 15));
  }
}

describe("quiet retries", () => {
  it("a plan that succeeds after transient retries posts no error message; the retries are in the step's log", async () => {
    const plan = await fixture.executor.submitPlan({
      conversationId: fixture.conversationId,
      raw: {
        title: "Flaky",
        steps: [step(1, "researcher", "fail=transient fail_attempts=2"), step(2, "analyst", "fail=transient fail_attempts=1")],
      },
    });
    expect(await fixture.waitForPlan(plan.id)).toBe("completed");
    expect(await messages(plan.id, "error")).toEqual([]);
    const log = await fixture.db.prisma.stepEvent.findMany({ where: { planId: plan.id, stepIndex: 1 } });
    expect(log.filter((entry) => entry.message.startsWith("transient failure (transient failure); retry"))).toHaveLength(2);
  });

  it("a step retried after transient failures is handed over in one visible message; the retries use it", async () => {
    const plan = await fixture.executor.submitPlan({
      conversationId: fixture.conversationId,
      raw: { title: "Flaky hand-off", steps: [step(1, "researcher", "fail=transient fail_attempts=2")] },
    });
    expect(await fixture.waitForPlan(plan.id)).toBe("completed");
    const dispatches = await fixture.db.prisma.message.findMany({ where: { planId: plan.id, kind: "dispatch" } });
    expect(dispatches).toHaveLength(1);
    const runs = await fixture.db.prisma.run.findMany({ where: { planId: plan.id }, orderBy: { attempt: "asc" } });
    expect(runs.map((run) => [run.attempt, run.triggerMessageId])).toEqual([1, 2, 3].map((attempt) => [attempt, dispatches[0].id]));
    const log = await fixture.db.prisma.stepEvent.findMany({ where: { planId: plan.id, stepIndex: 1, phase: "dispatch" } });
    expect(log.map((entry) => entry.message)).toEqual([
      "attempt 1 sent to @researcher",
      "attempt 2 sent to @researcher (a quiet retry)",
      "attempt 3 sent to @researcher (a quiet retry)",
    ]);
  });

  it("a final failure after the retries posts one message", async () => {
    const plan = await fixture.executor.submitPlan({
      conversationId: fixture.conversationId,
      raw: { title: "Down", steps: [step(1, "researcher", "fail=transient", { on_failure: "abort_plan", max_retries: 2 })] },
    });
    expect(await fixture.waitForPlan(plan.id)).toBe("failed");
    const errors = await messages(plan.id, "error");
    expect(errors).toHaveLength(1);
    expect(errors[0].body).toContain("no retries left after 2");
  });
});

describe("the commander's closing message", () => {
  it("a completed plan closes with a message that says so and points at the answer", async () => {
    const plan = await fixture.executor.submitPlan({
      conversationId: fixture.conversationId,
      raw: { title: "Fine", steps: [step(1, "researcher", "a"), step(2, "commander", "join {{step_1.output_summary}}")] },
    });
    expect(await fixture.waitForPlan(plan.id)).toBe("completed");
    const all = await messages(plan.id);
    expect(all.at(-1)).toMatchObject({ kind: "outcome", authorKind: "agent" });
    expect(all.at(-1)!.body).toMatch(/completed.*2 of 2 steps done/);
  });

  it("a plan whose every step failed and was skipped ends failed, and says what is missing and why", async () => {
    const plan = await fixture.executor.submitPlan({
      conversationId: fixture.conversationId,
      raw: {
        title: "Nothing works",
        steps: [
          step(1, "researcher", "fail=fatal", { on_failure: "continue" }),
          step(2, "analyst", "fail=fatal", { on_failure: "continue", wait_for: [] }),
          step(3, "commander", "join {{step_1.output_summary}} {{step_2.output_summary}} fail=fatal", {
            on_failure: "continue",
            wait_for: [1, 2],
          }),
        ],
      },
    });
    expect(await fixture.waitForPlan(plan.id)).toBe("failed");
    const closing = await messages(plan.id, "outcome");
    expect(closing).toHaveLength(1);
    expect(closing[0].body).toMatch(/failed/i);
    expect(closing[0].body).toContain("0 of 3 steps done");
    for (const index of [1, 2, 3]) expect(closing[0].body).toMatch(new RegExp(`Step ${index}\\b.*fatal failure`));
  });

  it("a plan with a step that failed under continue and still delivered is partial and names the missing step", async () => {
    const plan = await fixture.executor.submitPlan({
      conversationId: fixture.conversationId,
      raw: {
        title: "Half",
        steps: [
          step(1, "researcher", "fail=fatal", { on_failure: "continue" }),
          step(2, "analyst", "b", { wait_for: [] }),
          step(3, "writer", "c {{step_1.output_summary}} {{step_2.output_summary}}", { wait_for: [1, 2] }),
        ],
      },
    });
    expect(await fixture.waitForPlan(plan.id)).toBe("partial");
    const [closing] = await messages(plan.id, "outcome");
    expect(closing.body).toMatch(/partial/i);
    expect(closing.body).toContain("2 of 3 steps done");
    // continue leaves it failed (it used to read skipped): the message says so
    expect(closing.body).toMatch(/Step 1\b.*failed.*fatal failure/);
    // the result is delivered: the closing message points to step 3's, posted above it, without repeating it
    expect(closing.body).toContain("The result is above: step 3");
    expect(closing.body).not.toContain("summary of 3");
  });
});

describe("decisions in chat match what happened", () => {
  it("a commander's decision that arrives after a member retried says it was not applied, and the recovery is announced", async () => {
    let open!: () => void;
    let release!: () => void;
    decisionGate = new Promise<void>((resolve) => (open = resolve));
    // a second step keeps the plan running until the decision has spoken
    holdGate = new Promise<void>((resolve) => (release = resolve));
    try {
      const plan = await fixture.executor.submitPlan({
        conversationId: fixture.conversationId,
        raw: { title: "Retry wins", steps: [step(1, "researcher", "fail=fatal fail_attempts=1 decision=skip"), step(2, "writer", "hold")] },
      });
      const step1 = () => fixture.db.prisma.planStep.findFirstOrThrow({ where: { planId: plan.id, index: 1 } });
      await until(async () => (await step1()).status === "failed");
      await fixture.app.plans.retryStep({ actor: { id: fixture.userId, role: "member" }, planId: plan.id, stepIndex: 1 });
      await until(async () => (await step1()).status === "done");
      open();
      await until(async () => (await messages(plan.id, "decision")).length === 1);
      release();
      expect(await fixture.waitForPlan(plan.id)).toBe("completed");
      await fixture.executor.idle();
      const [decision] = await messages(plan.id, "decision");
      expect(decision.body).toContain("Decision: skip");
      expect(decision.body).toMatch(/not applied/i);
      const outcomes = (await messages(plan.id, "outcome")).map((message) => message.body);
      expect(outcomes.some((body) => /Step 1\b.*succeeded on attempt 2/.test(body))).toBe(true);
    } finally {
      open?.();
      release?.();
      decisionGate = null;
      holdGate = null;
    }
  });

  it("Stop plan while the commander weighs a failed step stops its decision too: nothing is said after the closing message", async () => {
    let open!: () => void;
    decisionGate = new Promise<void>((resolve) => (open = resolve));
    try {
      const plan = await fixture.executor.submitPlan({
        conversationId: fixture.conversationId,
        raw: { title: "Stopped while deciding", steps: [step(1, "researcher", "fail=fatal fail_attempts=1 decision=skip")] },
      });
      const deciding = () => fixture.db.prisma.run.findFirst({ where: { planId: plan.id, kind: "decision" } });
      await until(async () => (await deciding())?.status === "running");
      await fixture.app.plans.cancelPlan({ actor: { id: fixture.userId, role: "member" }, planId: plan.id, reason: "stop" });
      // (not waitForPlan: it waits for the executor to be idle, which a decision left running never is)
      await until(async () => (await fixture.db.prisma.plan.findUniqueOrThrow({ where: { id: plan.id } })).status === "cancelled");
      await until(async () => (await deciding())?.status !== "running", 5_000).catch(() => undefined);
      expect((await deciding())?.status).toBe("cancelled");
      // the commander's answer would have come now; it is dropped with its run
      open();
      await fixture.executor.idle();
      expect(await messages(plan.id, "decision")).toEqual([]);
      expect((await messages(plan.id)).at(-1)!.kind).toBe("outcome");
    } finally {
      open?.();
      decisionGate = null;
    }
  });

  it("a step the commander retried and that then succeeded is announced as recovered", async () => {
    const plan = await fixture.executor.submitPlan({
      conversationId: fixture.conversationId,
      raw: { title: "Commander retry", steps: [step(1, "researcher", "fail=fatal fail_attempts=1 decision=retry")] },
    });
    expect(await fixture.waitForPlan(plan.id)).toBe("completed");
    const [decision] = await messages(plan.id, "decision");
    expect(decision.body).not.toMatch(/not applied/i);
    const outcomes = (await messages(plan.id, "outcome")).map((message) => message.body);
    expect(outcomes.some((body) => /Step 1\b.*succeeded on attempt 2/.test(body))).toBe(true);
    // the closing message comes last
    expect((await messages(plan.id)).at(-1)!.body).toMatch(/completed/);
  });
});
