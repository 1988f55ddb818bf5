import { describe, expect, it } from "vitest";
import { PlanValidationError } from "../core/errors.ts";
import { rawStep as step, executorFixtureForFile } from "./testing/file-fixture.ts";
import { directiveScript } from "./testing/directive-script.ts";
import { NO_USAGE, ok } from "./testing/scripted-runner.ts";

const fixture = executorFixtureForFile({ script: directiveScript });

describe("executor on the embedded database", () => {
  it("runs a diamond in parallel, passes summaries downstream and dispatches each step once", async () => {
    const plan = await fixture.executor.submitPlan({
      conversationId: fixture.conversationId,
      request: "compare things",
      raw: {
        title: "Diamond",
        steps: [
          step(1, "researcher", "sleep=10 start"),
          step(2, "analyst", "sleep=80 left of {{step_1.output_summary}}", { wait_for: [1] }),
          step(3, "writer", "sleep=80 right", { wait_for: [1] }),
          step(4, "commander", "join {{step_2.output_summary}} and {{step_3.output_summary}}", { wait_for: [2, 3] }),
        ],
      },
    });
    expect(await fixture.waitForPlan(plan.id)).toBe("completed");
    const steps = await fixture.db.prisma.planStep.findMany({ where: { planId: plan.id }, orderBy: { index: "asc" } });
    expect(steps.map((s) => s.status)).toEqual(["done", "done", "done", "done"]);
    expect(steps[1].renderedInput).toContain("summary of 1");
    expect(steps[3].renderedInput).toContain("summary of 2");
    expect(steps[3].renderedInput).toContain("summary of 3");
    const runs = await fixture.db.prisma.run.findMany({ where: { planId: plan.id } });
    expect(runs).toHaveLength(4);
    for (const s of steps) expect(fixture.runner.startsByStep.get(`${plan.id}:${s.index}`)).toBe(1);
    // the two middle branches overlapped in time
    const [left, right] = [runs.find((r) => r.stepId === steps[1].id)!, runs.find((r) => r.stepId === steps[2].id)!];
    expect(left.startedAt!.getTime()).toBeLessThan(right.endedAt!.getTime());
    expect(right.startedAt!.getTime()).toBeLessThan(left.endedAt!.getTime());
    // sub-agent steps were dispatched as visible commander @-mentions; the commander step was not
    const dispatches = await fixture.db.prisma.message.findMany({ where: { planId: plan.id, kind: "dispatch" } });
    expect(dispatches).toHaveLength(3);
    expect(dispatches.every((m) => (m.mentions as { handle: string }[]).length === 1)).toBe(true);
    expect(dispatches.map((m) => m.body.split(" ")[0]).sort()).toEqual(["@analyst", "@researcher", "@writer"]);
  });

  it("keeps seq gap-free and published in order", async () => {
    const seqs = fixture.published.filter((e) => e.conversationId === fixture.conversationId).map((e) => e.seq);
    expect(seqs).toEqual(seqs.map((_, i) => i + 1));
    const stored = await fixture.db.prisma.conversationEvent.count({ where: { conversationId: fixture.conversationId } });
    expect(stored).toBe(seqs.length);
  });

  it("runs strictly serially when max_parallel is 1", async () => {
    const before = fixture.runner.maxLive;
    fixture.runner.maxLive = 0;
    const plan = await fixture.executor.submitPlan({
      conversationId: fixture.conversationId,
      raw: {
        title: "Serial fan-out",
        max_parallel: 1,
        steps: [
          step(1, "researcher", "sleep=20 a"),
          step(2, "analyst", "sleep=20 b", { wait_for: [] }),
          step(3, "writer", "sleep=20 c", { wait_for: [] }),
        ],
      },
    });
    expect(await fixture.waitForPlan(plan.id)).toBe("completed");
    expect(fixture.runner.maxLive).toBe(1);
    fixture.runner.maxLive = before;
  });

  it("retries a transient failure with backoff, then succeeds", async () => {
    const plan = await fixture.executor.submitPlan({
      conversationId: fixture.conversationId,
      raw: { title: "Flaky", steps: [step(1, "researcher", "fail=transient fail_attempts=2")] },
    });
    expect(await fixture.waitForPlan(plan.id)).toBe("completed");
    const runs = await fixture.db.prisma.run.findMany({ where: { planId: plan.id }, orderBy: { createdAt: "asc" } });
    expect(runs.map((r) => r.status)).toEqual(["failed", "failed", "succeeded"]);
    const stepRow = await fixture.db.prisma.planStep.findFirstOrThrow({ where: { planId: plan.id } });
    expect(stepRow.attempts).toBe(3);
    expect(stepRow.transientFailures).toBe(2);
  });

  it("aborts the plan and skips every pending step on an abort_plan failure", async () => {
    const plan = await fixture.executor.submitPlan({
      conversationId: fixture.conversationId,
      raw: {
        title: "Abort",
        steps: [step(1, "researcher", "fail=fatal", { on_failure: "abort_plan" }), step(2, "analyst", "b"), step(3, "writer", "c")],
      },
    });
    expect(await fixture.waitForPlan(plan.id)).toBe("failed");
    const steps = await fixture.db.prisma.planStep.findMany({ where: { planId: plan.id }, orderBy: { index: "asc" } });
    expect(steps.map((s) => s.status)).toEqual(["failed", "skipped", "skipped"]);
    expect(steps[0].failureReason).toContain("fatal failure");
  });

  it("wakes the commander on an ask_commander failure and applies its decision", async () => {
    const plan = await fixture.executor.submitPlan({
      conversationId: fixture.conversationId,
      raw: { title: "Ask", steps: [step(1, "researcher", "fail=fatal"), step(2, "analyst", "after {{step_1.output_summary}}")] },
    });
    // step 1 was skipped, step 2 still delivered
    expect(await fixture.waitForPlan(plan.id)).toBe("partial");
    const steps = await fixture.db.prisma.planStep.findMany({ where: { planId: plan.id }, orderBy: { index: "asc" } });
    expect(steps.map((s) => s.status)).toEqual(["skipped", "done"]);
    expect(steps[1].renderedInput).toContain("skipped");
    const decision = await fixture.db.prisma.message.findFirstOrThrow({ where: { planId: plan.id, kind: "decision" } });
    expect(decision.body).toContain("skip");
    // the failure reason (model or tool output) reaches the commander only in its fenced section
    const asked = fixture.runner.calls.find((call) => call.purpose.kind === "commander-decision" && call.step?.planId === plan.id);
    expect(asked?.purpose.kind === "commander-decision" && asked.purpose.failedStep.failureReason).toContain("fatal failure");
    expect(asked?.input).not.toContain("fatal failure");
  });

  it("pauses on a user step's form and resumes when it is answered", async () => {
    const plan = await fixture.executor.submitPlan({
      conversationId: fixture.conversationId,
      raw: { title: "Ask a person", steps: [step(1, "user", "Which database?"), step(2, "writer", "use {{step_1.output_summary}}")] },
    });
    expect(await fixture.waitForPlan(plan.id, ["paused"])).toBe("paused");
    const form = await fixture.db.prisma.form.findFirstOrThrow({ where: { planId: plan.id } });
    await expect(fixture.app.forms.answerForm({ formId: form.id, userId: fixture.userId, values: {} })).rejects.toMatchObject({
      code: "form_answer_invalid",
    });
    await fixture.app.forms.answerForm({ formId: form.id, userId: fixture.userId, values: { answer: "PostgreSQL" } });
    await expect(
      fixture.app.forms.answerForm({ formId: form.id, userId: fixture.userId, values: { answer: "again" } }),
    ).rejects.toMatchObject({ code: "form_closed" });
    expect(await fixture.waitForPlan(plan.id)).toBe("completed");
    const writer = await fixture.db.prisma.planStep.findFirstOrThrow({ where: { planId: plan.id, index: 2 } });
    expect(writer.renderedInput).toContain("PostgreSQL");
  });

  it("closes a paused plan's open forms when it is cancelled, so they cannot be answered", async () => {
    const plan = await fixture.executor.submitPlan({
      conversationId: fixture.conversationId,
      raw: { title: "Abandoned question", steps: [step(1, "user", "Which region?"), step(2, "writer", "{{step_1.output_summary}}")] },
    });
    expect(await fixture.waitForPlan(plan.id, ["paused"])).toBe("paused");
    await fixture.app.plans.cancelPlan({ actor: { id: fixture.userId, role: "member" }, planId: plan.id, reason: "not needed" });
    expect(await fixture.waitForPlan(plan.id)).toBe("cancelled");
    const form = await fixture.db.prisma.form.findFirstOrThrow({ where: { planId: plan.id } });
    expect(form.status).toBe("cancelled");
    await expect(fixture.app.forms.answerForm({ formId: form.id, userId: fixture.userId, values: { answer: "eu" } })).rejects.toMatchObject(
      {
        code: "form_closed",
      },
    );
    const closed = fixture.published.find((event) => event.type === "form-closed" && event.payload.form.id === form.id);
    expect(closed).toBeDefined();
  });

  it("resumes the same agent session after a blocked step's form is answered", async () => {
    const plan = await fixture.executor.submitPlan({
      conversationId: fixture.conversationId,
      raw: { title: "Agent asks", steps: [step(1, "researcher", "block=1 find it")] },
    });
    expect(await fixture.waitForPlan(plan.id, ["paused"])).toBe("paused");
    const form = await fixture.db.prisma.form.findFirstOrThrow({ where: { planId: plan.id } });
    await fixture.app.forms.answerForm({ formId: form.id, userId: fixture.userId, values: { name: "Grace" } });
    expect(await fixture.waitForPlan(plan.id)).toBe("completed");
    const runs = await fixture.db.prisma.run.findMany({ where: { planId: plan.id }, orderBy: { createdAt: "asc" } });
    expect(runs.map((r) => r.status)).toEqual(["blocked", "succeeded"]);
    expect(runs[1].resumesRunId).toBe(runs[0].id);
    const stepRow = await fixture.db.prisma.planStep.findFirstOrThrow({ where: { planId: plan.id } });
    expect(stepRow.outputSummary).toContain("Grace");
  });

  it("treats an invalid form or an oversized summary from the model as untrusted input", async () => {
    fixture.runner.setScript((request) =>
      /badform/.test(request.input)
        ? {
            kind: "blocked",
            text: "?",
            form: { title: "", fields: [{ name: "1 bad", label: "x", type: "select", required: true }] },
            usage: NO_USAGE,
          }
        : ok("x".repeat(50_000)),
    );
    try {
      const bad = await fixture.executor.submitPlan({
        conversationId: fixture.conversationId,
        raw: { title: "Bad form", steps: [step(1, "researcher", "badform", { on_failure: "abort_plan" })] },
      });
      expect(await fixture.waitForPlan(bad.id)).toBe("failed");
      const failed = await fixture.db.prisma.planStep.findFirstOrThrow({ where: { planId: bad.id } });
      expect(failed.failureReason).toContain("invalid form");
      expect(await fixture.db.prisma.form.count({ where: { planId: bad.id } })).toBe(0);

      const long = await fixture.executor.submitPlan({
        conversationId: fixture.conversationId,
        raw: { title: "Long", steps: [step(1, "researcher", "talk a lot")] },
      });
      expect(await fixture.waitForPlan(long.id)).toBe("completed");
      const done = await fixture.db.prisma.planStep.findFirstOrThrow({ where: { planId: long.id } });
      expect(done.outputSummary!.length).toBeLessThan(8_100);
      expect(done.outputSummary).toContain("(truncated)");
    } finally {
      fixture.runner.setScript(directiveScript);
    }
  });

  it("cancels a running plan, aborting its live run and ignoring its late result", async () => {
    const plan = await fixture.executor.submitPlan({
      conversationId: fixture.conversationId,
      raw: { title: "Cancel me", steps: [step(1, "researcher", "sleep=5000 long"), step(2, "analyst", "never")] },
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    await fixture.app.plans.cancelPlan({ actor: { id: fixture.userId, role: "member" }, planId: plan.id, reason: "changed my mind" });
    expect(await fixture.waitForPlan(plan.id)).toBe("cancelled");
    const steps = await fixture.db.prisma.planStep.findMany({ where: { planId: plan.id }, orderBy: { index: "asc" } });
    expect(steps.map((s) => s.status)).toEqual(["skipped", "skipped"]);
    const runs = await fixture.db.prisma.run.findMany({ where: { planId: plan.id } });
    expect(runs.map((r) => r.status)).toEqual(["cancelled"]);
  });

  it("runs identical subtasks once and fans the result out", async () => {
    const plan = await fixture.executor.submitPlan({
      conversationId: fixture.conversationId,
      raw: {
        title: "Twins",
        steps: [
          step(1, "researcher", "sleep=50 look up the release date", { wait_for: [] }),
          step(2, "researcher", "sleep=50   Look up the release   date. ", { wait_for: [] }),
          step(3, "writer", "{{step_1.output_summary}} / {{step_2.output_summary}}", { wait_for: [1, 2] }),
        ],
      },
    });
    expect(await fixture.waitForPlan(plan.id)).toBe("completed");
    const runs = await fixture.db.prisma.run.findMany({ where: { planId: plan.id } });
    expect(runs).toHaveLength(2); // one shared run for steps 1 and 2, one for step 3
    const steps = await fixture.db.prisma.planStep.findMany({ where: { planId: plan.id }, orderBy: { index: "asc" } });
    expect(steps[0].outputSummary).toBe(steps[1].outputSummary);
    expect(steps[0].usageTokens + steps[1].usageTokens).toBe(
      runs.find((r) => r.stepId === steps[0].id)!.tokensIn + runs.find((r) => r.stepId === steps[0].id)!.tokensOut,
    );
  });

  it("starts a quorum step once enough inputs exist and releases the straggler", async () => {
    const plan = await fixture.executor.submitPlan({
      conversationId: fixture.conversationId,
      raw: {
        title: "Quorum",
        steps: [
          step(1, "researcher", "sleep=20 a", { wait_for: [] }),
          step(2, "analyst", "sleep=20 b", { wait_for: [] }),
          step(3, "writer", "sleep=20000 straggler", { wait_for: [] }),
          step(4, "commander", "any two of them", { wait_for: [1, 2, 3], quorum: 2 }),
        ],
      },
    });
    expect(await fixture.waitForPlan(plan.id)).toBe("completed");
    const steps = await fixture.db.prisma.planStep.findMany({ where: { planId: plan.id }, orderBy: { index: "asc" } });
    expect(steps.map((s) => s.status)).toEqual(["done", "done", "skipped", "done"]);
    expect(steps[2].failureReason).toContain("quorum");
    const straggler = await fixture.db.prisma.run.findFirstOrThrow({ where: { stepId: steps[2].id } });
    expect(straggler.status).toBe("cancelled");
  });

  it("refuses dispatch past the plan's token budget and asks the commander", async () => {
    const plan = await fixture.executor.submitPlan({
      conversationId: fixture.conversationId,
      raw: {
        title: "Budget",
        budget: { max_tokens: 10 },
        steps: [step(1, "researcher", "first"), step(2, "analyst", "second {{step_1.output_summary}}")],
      },
    });
    // the last step never ran: nothing was delivered
    expect(await fixture.waitForPlan(plan.id)).toBe("failed");
    const steps = await fixture.db.prisma.planStep.findMany({ where: { planId: plan.id }, orderBy: { index: "asc" } });
    expect(steps[0].status).toBe("done");
    expect(steps[0].usageTokens).toBe(15);
    // the commander (scripted: skip) was asked instead of the step running
    expect(steps[1].status).toBe("skipped");
    expect(steps[1].failureReason).toContain("budget exhausted");
    expect(await fixture.db.prisma.run.count({ where: { stepId: steps[1].id, kind: "step" } })).toBe(0);
    expect(await fixture.db.prisma.message.count({ where: { planId: plan.id, kind: "decision" } })).toBe(1);
  });

  it("maps a for_each step over an upstream list with bounded concurrency and collects in order", async () => {
    fixture.runner.setScript(async (request, call) => {
      if (request.step?.title === "List") return ok("- alpha\n- beta\n- gamma");
      return directiveScript(request, call);
    });
    try {
      fixture.runner.maxLive = 0;
      const plan = await fixture.executor.submitPlan({
        conversationId: fixture.conversationId,
        raw: {
          title: "Fan out",
          steps: [
            { index: 1, title: "List", assignee: "researcher", input: "list three things" },
            {
              index: 2,
              title: "Each",
              assignee: "analyst",
              input: "sleep=30 look at {{item}} (#{{item_index}})",
              for_each: { from: 1, field: "output_lines", max_parallel: 2 },
            },
            { index: 3, title: "Sum up", assignee: "writer", input: "{{step_2.output_summary}}" },
          ],
        },
      });
      expect(await fixture.waitForPlan(plan.id)).toBe("completed");
      const steps = await fixture.db.prisma.planStep.findMany({ where: { planId: plan.id }, orderBy: { index: "asc" } });
      expect(steps.map((s) => s.index)).toEqual([1, 2, 3, 4, 5, 6]);
      const children = steps.filter((s) => s.parentIndex === 2);
      expect(children.map((s) => s.renderedInput)).toEqual([
        expect.stringContaining("alpha (#1)"),
        expect.stringContaining("beta (#2)"),
        expect.stringContaining("gamma (#3)"),
      ]);
      expect(fixture.runner.maxLive).toBeLessThanOrEqual(2);
      const parent = steps[1];
      expect(parent.status).toBe("done");
      expect(parent.outputSummary!.split("\n")).toEqual([
        expect.stringMatching(/^1\. alpha: /),
        expect.stringMatching(/^2\. beta: /),
        expect.stringMatching(/^3\. gamma: /),
      ]);
      expect(await fixture.db.prisma.run.count({ where: { stepId: parent.id } })).toBe(0);
      expect(steps[2].renderedInput).toContain("2. beta");
    } finally {
      fixture.runner.setScript(directiveScript);
    }
  });

  it("rejects an invalid plan naming the step and field, storing nothing", async () => {
    const before = await fixture.db.prisma.plan.count();
    const attempt = fixture.executor.submitPlan({
      conversationId: fixture.conversationId,
      raw: { title: "Bad", steps: [step(1, "researcher", "a"), step(2, "nobody", "b")] },
    });
    await expect(attempt).rejects.toBeInstanceOf(PlanValidationError);
    await expect(attempt).rejects.toMatchObject({ issues: [expect.objectContaining({ stepIndex: 2, field: "assignee" })] });
    expect(await fixture.db.prisma.plan.count()).toBe(before);
  });

  it("starts an agent run from a person's mention and the commander from an unaddressed message", async () => {
    const callsBefore = fixture.runner.calls.length;
    await fixture.app.messages.postMessage({
      conversationId: fixture.conversationId,
      author: { kind: "user", userId: fixture.userId },
      body: "hello @analyst",
      mentionHandles: ["analyst"],
    });
    await fixture.app.messages.postMessage({
      conversationId: fixture.conversationId,
      author: { kind: "user", userId: fixture.userId },
      body: "just a note for whoever answers",
    });
    await fixture.executor.idle();
    // a person typing a handle in full mentions it (DESIGN rule 2: one tokeniser for people's messages)
    await fixture.app.messages.postMessage({
      conversationId: fixture.conversationId,
      author: { kind: "user", userId: fixture.userId },
      body: "and a note that names @writer in prose",
    });
    await fixture.executor.idle();
    const started = fixture.runner.calls.slice(callsBefore).map((call) => call.agent.handle);
    expect(started).toEqual(["analyst", "commander", "writer"]);
    await expect(
      fixture.app.messages.postMessage({
        conversationId: fixture.conversationId,
        author: { kind: "user", userId: fixture.userId },
        body: "hi",
        mentionHandles: ["ghost"],
      }),
    ).rejects.toMatchObject({ code: "invalid_input" });
  });

  it("re-dispatches a run that was live when the process stopped", async () => {
    const plan = await fixture.executor.submitPlan({
      conversationId: fixture.conversationId,
      raw: { title: "Crash", steps: [step(1, "researcher", "sleep=300 slow"), step(2, "analyst", "after")] },
    });
    await new Promise((resolve) => setTimeout(resolve, 60));
    await fixture.restart();
    expect(await fixture.waitForPlan(plan.id)).toBe("completed");
    const runs = await fixture.db.prisma.run.findMany({ where: { planId: plan.id }, orderBy: { createdAt: "asc" } });
    expect(runs.map((r) => r.status)).toEqual(["lost", "succeeded", "succeeded"]);
    expect(fixture.runner.maxLivePerStep).toBe(1);
  });
});
