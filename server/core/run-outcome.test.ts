import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { RUN_KINDS, runKindOf } from "./types.ts";
import {
  MAX_SUMMARY_CHARS,
  MAX_TEXT_CHARS,
  decisionNotice,
  lostRunVerdict,
  runFailureNotice,
  runVerdict,
  type FinishedRun,
  type RunEffect,
  type RunReport,
} from "./run-outcome.ts";
import { makeStep } from "./testing/fixtures.ts";

const validForm = { title: "Which city?", fields: [{ name: "city", label: "City", type: "text", required: true }] };

const finishedRun: fc.Arbitrary<FinishedRun> = fc.record({
  kind: fc.constantFrom(...RUN_KINDS),
  stepIndex: fc.option(fc.integer({ min: 1, max: 20 }), { nil: null }),
  inPlan: fc.boolean(),
});

const report: fc.Arbitrary<RunReport> = fc.oneof(
  fc.record({
    kind: fc.constant("ok" as const),
    text: fc.string({ maxLength: 40 }),
    summary: fc.string({ maxLength: 40 }),
    files: fc.array(fc.string({ maxLength: 10 }), { maxLength: 3 }),
    untrusted: fc.boolean(),
    plan: fc.option(fc.constant({ title: "t", steps: [] }), { nil: undefined }),
    decision: fc.option(fc.constant({ kind: "skip" }), { nil: undefined }),
  }),
  fc.record({
    kind: fc.constant("blocked" as const),
    form: fc.constantFrom<unknown>(validForm, { title: "" }, null, "a form"),
    text: fc.string({ maxLength: 40 }),
  }),
  fc.record({ kind: fc.constant("failed" as const), transient: fc.boolean(), reason: fc.string({ minLength: 1, maxLength: 40 }) }),
);

/** effects that tell the plan something (at most one per run) */
const planFacing = (effects: RunEffect[]) =>
  effects.filter((effect) => effect.kind === "report" || effect.kind === "decide" || effect.kind === "rule-decision");

describe("runVerdict: what a finished run means", () => {
  it("records the report's kind, tells the plan at most once and only about the run's own step", () => {
    fc.assert(
      fc.property(finishedRun, report, (run, rep) => {
        const verdict = runVerdict(run, rep);
        expect(verdict.status).toBe({ ok: "succeeded", blocked: "blocked", failed: "failed" }[rep.kind]);
        expect(verdict.error).toBe(rep.kind === "failed" ? rep.reason : null);
        const told = planFacing(verdict.effects);
        expect(told.length).toBeLessThanOrEqual(1);
        for (const effect of told) expect("stepIndex" in effect && effect.stepIndex).toBe(run.stepIndex);
        if (run.stepIndex === null) expect(told).toEqual([]);
        // a run with a step that is not a chat always tells its plan (the plan would wait forever)
        if (run.stepIndex !== null && run.kind !== "chat") expect(told.length).toBe(1);
      }),
    );
  });

  it("a decision run is answered with a decision unless it failed to report a form", () => {
    fc.assert(
      fc.property(finishedRun, report, (run, rep) => {
        fc.pre(run.kind === "decision" && run.stepIndex !== null);
        const kinds = planFacing(runVerdict(run, rep).effects).map((effect) => effect.kind);
        const badForm = rep.kind === "blocked" && rep.form !== validForm;
        expect(kinds).toEqual([badForm ? "report" : rep.kind === "ok" ? "rule-decision" : "decide"]);
      }),
    );
  });

  it("only a step or a mention opens a form, and only with a valid one; the plan hears blocked after it", () => {
    fc.assert(
      fc.property(finishedRun, report, (run, rep) => {
        const { effects } = runVerdict(run, rep);
        const opened = effects.findIndex((effect) => effect.kind === "open-form");
        const may = rep.kind === "blocked" && rep.form === validForm && (run.kind === "step" || run.kind === "mention");
        expect(opened >= 0).toBe(may);
        if (opened >= 0 && run.stepIndex !== null)
          expect(effects[opened + 1]).toMatchObject({ kind: "report", outcome: { kind: "blocked" } });
      }),
    );
  });

  it("a failure is said at once unless it is a step's, which is said only if it sticks", () => {
    fc.assert(
      fc.property(finishedRun, report, (run, rep) => {
        fc.pre(rep.kind === "failed");
        const { effects } = runVerdict(run, rep);
        const stepRun = run.stepIndex !== null && run.kind !== "decision";
        expect(effects.some((effect) => effect.kind === "say")).toBe(!stepRun);
        if (stepRun) expect(effects).toEqual([expect.objectContaining({ kind: "report", notice: "failure" })]);
      }),
    );
  });

  it("outside text is made storable and cut on whole characters (issue 42)", () => {
    const { effects } = runVerdict(
      { kind: "step", stepIndex: 2, inPlan: true },
      { kind: "ok", text: `a\u0000b${"😀".repeat(MAX_TEXT_CHARS)}`, summary: "half \uD83D", files: ["f\u0000"], untrusted: false },
    );
    const [say, reportEffect] = effects;
    if (say.kind !== "say" || reportEffect.kind !== "report" || reportEffect.outcome.kind !== "ok")
      throw new Error("expected say and report");
    expect(say.body.startsWith("a\uFFFDb😀")).toBe(true);
    expect(say.body.endsWith("😀\n\n…(truncated)")).toBe(true);
    expect(reportEffect.outcome.summary).toBe("half \uFFFD");
    expect(reportEffect.outcome.files).toEqual(["f\uFFFD"]);
    const failed = runVerdict({ kind: "chat", stepIndex: null, inPlan: false }, { kind: "failed", transient: false, reason: "bad \uDE00" });
    expect(failed.error).toBe("bad \uFFFD");
  });

  it("model output is bounded before it is stored or told", () => {
    const long = "x".repeat(MAX_TEXT_CHARS + 10);
    const { effects } = runVerdict(
      { kind: "step", stepIndex: 2, inPlan: true },
      { kind: "ok", text: long, summary: "y".repeat(MAX_SUMMARY_CHARS + 1), files: Array(150).fill("f".repeat(300)), untrusted: true },
    );
    const [say, reportEffect] = effects;
    expect(say).toMatchObject({ kind: "say", as: "result" });
    expect(say.kind === "say" && say.body.startsWith("x".repeat(MAX_TEXT_CHARS)) && say.body.endsWith("…(truncated)")).toBe(true);
    if (reportEffect.kind !== "report" || reportEffect.outcome.kind !== "ok") throw new Error("expected an ok report");
    expect(reportEffect.outcome.summary.length).toBeLessThan(MAX_SUMMARY_CHARS + 20);
    expect(reportEffect.outcome.files).toHaveLength(100);
    expect(reportEffect.outcome.files[0].length).toBeLessThan(220);
    expect(reportEffect.outcome.untrusted).toBe(true);
  });

  it("examples: the commander's plan, a mention's answer, an empty answer, a commander asking", () => {
    const ok = { kind: "ok" as const, text: "Here is the plan", summary: "", files: [], untrusted: false };
    expect(runVerdict({ kind: "chat", stepIndex: null, inPlan: false }, { ...ok, plan: { title: "p" } }).effects).toEqual([
      { kind: "create-plan", raw: { title: "p" }, text: "Here is the plan" },
    ]);
    expect(runVerdict({ kind: "mention", stepIndex: null, inPlan: false }, ok).effects).toEqual([
      { kind: "say", body: "Here is the plan", as: "text" },
    ]);
    expect(runVerdict({ kind: "mention", stepIndex: null, inPlan: false }, { ...ok, text: "  " }).effects).toEqual([]);
    // the runtime's own words keep their notice on the way to the conversation
    const silent = { ...ok, text: "I have nothing to add to this.", notice: { key: "nothingToAdd" as const, values: {} } };
    expect(runVerdict({ kind: "chat", stepIndex: null, inPlan: false }, silent).effects).toEqual([
      { kind: "say", body: "I have nothing to add to this.", as: "text", notice: { key: "nothingToAdd", values: {} } },
    ]);
    expect(
      runVerdict({ kind: "commander-step", stepIndex: 3, inPlan: true }, { kind: "blocked", form: validForm, text: "" }).effects,
    ).toEqual([
      {
        kind: "say",
        body: "**Failed:** the commander asked for input it cannot wait for",
        notice: { key: "failed", values: { reason: "the commander asked for input it cannot wait for" } },
        as: "error",
      },
      {
        kind: "report",
        stepIndex: 3,
        outcome: { kind: "failed", transient: false, reason: "the commander asked for input it cannot wait for" },
        notice: null,
      },
    ]);
    expect(
      runVerdict({ kind: "decision", stepIndex: 3, inPlan: true }, { kind: "failed", transient: true, reason: "down" }).effects,
    ).toEqual([
      { kind: "say", body: "**Failed:** down", notice: { key: "failed", values: { reason: "down" } }, as: "error" },
      { kind: "decide", stepIndex: 3, decision: { kind: "abort", reason: "the commander could not decide: down" } },
    ]);
    const invalid = runVerdict({ kind: "step", stepIndex: 1, inPlan: true }, { kind: "blocked", form: { title: "" }, text: "" });
    expect(invalid.effects[0]).toMatchObject({ kind: "say", as: "error" });
    expect(invalid.effects[0].kind === "say" && invalid.effects[0].body).toContain("the agent asked with an invalid form: title");
  });
});

describe("runFailureNotice: a failure is said only when it sticks", () => {
  const before = [makeStep({ index: 1, status: "in_progress", liveRunId: "r1", transientFailures: 0 })];

  it("says nothing when the step went back for a retry, the recorded reason when it failed", () => {
    const retried = [makeStep({ index: 1, status: "pending", transientFailures: 1 })];
    expect(runFailureNotice({ applied: true, before, after: retried, runId: "r1", reason: "timeout" })).toBeNull();
    const failed = [makeStep({ index: 1, status: "failed", failureReason: "timeout (3 attempts)" })];
    expect(runFailureNotice({ applied: true, before, after: failed, runId: "r1", reason: "timeout" })).toEqual({
      body: "**Failed:** timeout (3 attempts)",
      notice: { key: "failed", values: { reason: "timeout (3 attempts)" } },
    });
    expect(runFailureNotice({ applied: false, before, after: before, runId: "r1", reason: "timeout" })?.body).toBe("**Failed:** timeout");
  });

  it("speaks of steps of this run only", () => {
    const after = [makeStep({ index: 1, status: "failed", failureReason: "x" })];
    expect(runFailureNotice({ applied: true, before, after, runId: "other", reason: "r" })).toBeNull();
  });
});

describe("decisionNotice", () => {
  it("says the commander's words, and that nothing applied when someone acted first", () => {
    const step = makeStep({ index: 2, status: "in_progress" });
    expect(decisionNotice({ applied: true, text: "", decision: { kind: "skip" }, stepIndex: 2, step }).body).toBe(
      "Decision for step 2: skip.",
    );
    // the commander's own words are its message: no notice
    expect(decisionNotice({ applied: true, text: "Skip it", decision: { kind: "skip" }, stepIndex: 2, step })).toEqual({
      body: "Skip it",
      notice: null,
    });
    expect(decisionNotice({ applied: false, text: "Retry it", decision: { kind: "retry" }, stepIndex: 2, step })).toEqual({
      body: "Retry it\n\n_Not applied: step 2 is already in progress; someone acted on it before the commander decided._",
      notice: { key: "decisionNotApplied", values: { index: 2, status: "in_progress" }, said: "Retry it" },
    });
    expect(decisionNotice({ applied: false, text: "", decision: { kind: "abort" }, stepIndex: 9, step: undefined }).body).toContain(
      "the step no longer exists",
    );
  });
});

describe("lostRunVerdict: what a run lost with its process means", () => {
  it("a step's run goes to its plan; any other run is started again once, as the next attempt, a decision then aborts", () => {
    fc.assert(
      fc.property(
        fc.record({
          kind: fc.constantFrom(...RUN_KINDS),
          stepIndex: fc.option(fc.integer({ min: 1, max: 9 }), { nil: null }),
          attempt: fc.integer({ min: 1, max: 5 }),
          hasAgent: fc.boolean(),
        }),
        (run) => {
          const verdict = lostRunVerdict(run);
          const stepRun = run.stepIndex !== null && (run.kind === "step" || run.kind === "commander-step");
          if (stepRun) expect(verdict).toEqual({ kind: "tell-plan", stepIndex: run.stepIndex });
          else if (run.hasAgent && run.attempt === 1) expect(verdict).toEqual({ kind: "redispatch", attempt: 2 });
          // a decision its step waits for: lost for good, the plan is aborted rather than left waiting
          else if (run.kind === "decision" && run.stepIndex !== null)
            expect(verdict).toEqual({ kind: "abort-decision", stepIndex: run.stepIndex });
          else expect(verdict).toEqual({ kind: "none" });
        },
      ),
    );
  });
});

describe("runKindOf", () => {
  it("returns a known kind as it is and refuses any other text, naming the run", () => {
    fc.assert(
      fc.property(fc.constantFrom(...RUN_KINDS), (kind) => {
        expect(runKindOf({ id: "r", kind })).toBe(kind);
      }),
    );
    fc.assert(
      fc.property(
        fc.string().filter((text) => !(RUN_KINDS as readonly string[]).includes(text)),
        (kind) => {
          expect(() => runKindOf({ id: "r1", kind })).toThrow(/run r1: unknown kind/);
        },
      ),
    );
  });
});
