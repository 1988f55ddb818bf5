import { APICallError, tool } from "ai";
import { z } from "zod";
import { afterEach, describe, expect, it, vi } from "vitest";
import { deriveSummary, extractItems, parseDirective } from "./offline-directives.ts";
import { formSpecSchema } from "../core/form-schema.ts";
import { abortableSleep, TYPED_FORM_FIELDS } from "./offline-model.ts";
import { commanderProfile, recordingSink, runRequest, testRuntime } from "./testing/agent-fixture.ts";
import { corePlanValidator } from "./core-plan-validator.ts";

describe("offline directives", () => {
  it("parses every key, quoted values included", () => {
    const directive = parseDirective('Do it.\n@offline sleep=250 fail=transient fail_attempts=2 block=1 summary="All \\"good\\", done"');
    expect(directive).toEqual({
      sleepMs: 250,
      pauseMs: 0,
      fail: "transient",
      failAttempts: 2,
      block: true,
      blockSecret: false,
      blockTyped: false,
      summary: 'All "good", done',
      decision: null,
      file: null,
    });
    expect(parseDirective("@offline file=notes/shared.md").file).toBe("notes/shared.md");
    expect(parseDirective("@offline file=/etc/passwd").file).toBeNull();
    expect(parseDirective("@offline block=secret")).toMatchObject({ block: true, blockSecret: true });
    expect(parseDirective("@offline block=typed")).toMatchObject({ block: true, blockSecret: false, blockTyped: true });
  });

  it("block=typed asks with a form of every field type that the form schema accepts", () => {
    const spec = formSpecSchema.parse({ title: "Typed", fields: TYPED_FORM_FIELDS });
    expect(new Set(spec.fields.map((field) => field.type))).toEqual(new Set(["text", "textarea", "select", "number", "boolean"]));
    expect(spec.fields.some((field) => field.secret === true)).toBe(true);
  });

  it("reads \\n in a quoted summary as a line break, so a summary can be a list", () => {
    expect(parseDirective('@offline summary="- one\\n- two"').summary).toBe("- one\n- two");
  });

  it("ignores prose that mentions @offline without a directive, and bad values", () => {
    expect(parseDirective("the @offline model is nice").fail).toBeNull();
    expect(parseDirective("@offline sleep=-5 fail=sometimes").sleepMs).toBe(0);
  });

  it.each([
    ["compare Postgres, MySQL and SQLite", ["Postgres", "MySQL", "SQLite"]],
    ["Research A, B and C", ["A", "B", "C"]],
    ["Please compare red apples and green pears for a picnic.", ["red apples", "green pears"]],
    ["research Rust, Go, Zig, and Odin in terms of safety", ["Rust", "Go", "Zig", "Odin"]],
  ])("finds the items of %j", (request, items) => {
    expect(extractItems(request)).toEqual(items);
  });

  it.each(["What is the capital of France?", "Hello and welcome", "I like tea, mostly"])("finds no list in %j", (request) => {
    expect(extractItems(request)).toEqual([]);
  });

  it("derives a summary sentence from the input", () => {
    expect(deriveSummary("@offline sleep=1\nWrite a haiku about rain.\nmore")).toBe("Offline answer to: Write a haiku about rain.");
  });
});

describe("offline model through the runner", () => {
  it("plans one step per item, round-robin, plus a synthesis that waits for all", async () => {
    const { runner } = testRuntime();
    const sink = recordingSink();
    const result = await runner.run(
      runRequest({ agent: commanderProfile(), purpose: { kind: "commander-chat" }, input: "compare Postgres, MySQL and SQLite" }),
      sink,
    );
    expect(result.kind).toBe("ok");
    if (result.kind !== "ok") return;
    const plan = result.plan as { steps: { index: number; assignee: string; input: string; wait_for: number[] }[] };
    expect(plan.steps.map((step) => step.assignee)).toEqual(["researcher", "writer", "researcher", "commander"]);
    expect(plan.steps[0].input).toContain("Postgres");
    expect(plan.steps[0].input).toContain("{{request}}");
    expect(plan.steps[3].wait_for).toEqual([1, 2, 3]);
    expect(plan.steps[3].input).toContain("{{step_1.output_summary}}");
    expect(plan.steps[3].input).toContain("{{step_3.output_summary}}");
    expect(sink.text()).toContain("3 parallel steps");
    expect(sink.phases()).toContain("tool-call");
  });

  it("answers a request with no list directly", async () => {
    const { runner } = testRuntime();
    const result = await runner.run(
      runRequest({ agent: commanderProfile(), purpose: { kind: "commander-chat" }, input: "What time is it?" }),
      recordingSink(),
    );
    expect(result).toMatchObject({ kind: "ok" });
    if (result.kind === "ok") {
      expect(result.plan).toBeUndefined();
      expect(result.text).toContain("What time is it?");
    }
  });

  it("writes plans the plan critic has nothing to say about, so they run on the first proposal", async () => {
    const validator = corePlanValidator({ maxSteps: 200, maxInputChars: 20_000, defaultMaxParallel: 4, defaultMaxRetries: 3 });
    const verdicts: ReturnType<typeof validator>[] = [];
    const { runner } = testRuntime({ deps: { validatePlan: (raw, request) => verdicts[verdicts.push(validator(raw, request)) - 1] } });
    for (const input of ["Compare Postgres, MySQL and SQLite for a small team", "research a, b, c, d, e and f"]) {
      const result = await runner.run(
        runRequest({ agent: commanderProfile(), purpose: { kind: "commander-chat" }, input }),
        recordingSink(),
      );
      expect(result).toMatchObject({ kind: "ok", plan: expect.anything() });
    }
    expect(verdicts).toEqual([
      { ok: true, findings: [] },
      { ok: true, findings: [] },
    ]);
  });

  it("an invalid plan goes back to the model, a bounded number of times", async () => {
    const seen: unknown[] = [];
    const { runner } = testRuntime({
      deps: {
        validatePlan: (raw) => {
          seen.push(raw);
          return { ok: false, message: 'step 2: assignee "writer" is not in this conversation' };
        },
      },
    });
    const result = await runner.run(
      runRequest({ agent: commanderProfile(), purpose: { kind: "commander-chat" }, input: "research A, B and C" }),
      recordingSink(),
    );
    // the offline model answers the rejection in text instead of retrying: one rejection, then ok without plan
    expect(seen).toHaveLength(1);
    expect(result.kind).toBe("ok");
    if (result.kind === "ok") {
      expect(result.plan).toBeUndefined();
      expect(result.text).toContain("not in this conversation");
    }
  });

  it("plans a 49-item list as 50 steps under a title within the 200-character limit", async () => {
    const seen: { title: string; steps: unknown[] }[] = [];
    const { runner } = testRuntime({
      deps: {
        validatePlan: (raw) => {
          seen.push(raw as { title: string; steps: unknown[] });
          return { ok: false, message: "recorded" };
        },
      },
    });
    const items = Array.from({ length: 49 }, (_, i) => `topic${i + 1}`);
    await runner.run(
      runRequest({ agent: commanderProfile(), purpose: { kind: "commander-chat" }, input: `Compare ${items.join(", ")}.` }),
      recordingSink(),
    );
    expect(seen[0].steps).toHaveLength(50);
    expect(seen[0].title.length).toBeLessThanOrEqual(200);
    expect(seen[0].title).toMatch(/^Plan: 49 items \(topic1, topic2, /);
  });

  it("synthesizes upstream summaries on a commander step", async () => {
    const { runner } = testRuntime();
    const result = await runner.run(
      runRequest({
        agent: commanderProfile(),
        purpose: { kind: "commander-step" },
        input: "Synthesize the findings:\n- Postgres: robust\n- SQLite: embedded",
        step: { planId: "p1", stepIndex: 3, title: "Synthesize" },
      }),
      recordingSink(),
    );
    expect(result).toMatchObject({ kind: "ok" });
    if (result.kind === "ok") {
      expect(result.text).toContain("## Synthesis");
      expect(result.text).toContain("- Postgres: robust");
      expect(result.summary).toContain("Synthesis");
    }
  });

  it.each([
    ["Step failed: timeout", "Research B", "skip"],
    ["@offline decision=retry", "Research B", "retry"],
    ["@offline decision=abort", "Research B", "abort"],
    // a directive in the failed step's own input (e.g. from {{request}}); its fail= is not the decider's
    ["Step failed: fatal", "Research B\n@offline fail=fatal decision=retry", "retry"],
  ])("decides about a failed step (%s / input %s → %s)", async (reason, input, kind) => {
    const { runner } = testRuntime();
    const result = await runner.run(
      runRequest({
        agent: commanderProfile(),
        purpose: {
          kind: "commander-decision",
          failedStep: { index: 2, title: "Research B", assignee: "writer", input, failureReason: reason },
        },
        input: "Step 2 failed. Decide.",
      }),
      recordingSink(),
    );
    expect(result.kind).toBe("ok");
    if (result.kind === "ok") expect(result.decision).toMatchObject({ kind });
  });

  it("as a sub-agent answers in markdown and finishes with a summary", async () => {
    const { runner } = testRuntime();
    const sink = recordingSink();
    const result = await runner.run(runRequest({ input: 'Cover "Postgres"\n@offline summary="Postgres is solid"' }), sink);
    expect(result).toMatchObject({ kind: "ok", summary: "Postgres is solid", files: [] });
    if (result.kind === "ok") {
      expect(result.text).toContain("### Findings");
      expect(result.usage.tokensIn).toBeGreaterThan(0);
      expect(result.usage.cost).toBe(0);
    }
    // batched: far fewer deltas than the model's 24-character chunks
    expect(sink.text()).toBe(result.kind === "ok" ? result.text : "");
    expect(sink.deltas.length).toBeLessThan(Math.ceil(sink.text().length / 24));
  });

  it("in a workspace slot writes its findings to findings/<item>.md, then finishes", async () => {
    const written: { path: string; content: string }[] = [];
    const slotWrite = tool({
      description: "write a file",
      inputSchema: z.object({ path: z.string(), content: z.string() }),
      execute: async (input) => {
        written.push(input);
        return "written";
      },
    });
    const { runner } = testRuntime({ deps: { extraTools: () => ({ slot_write: slotWrite }) } });
    const result = await runner.run(
      runRequest({ input: 'Cover "Big Query" for this request:\n@offline summary="Fast enough"' }),
      recordingSink(),
    );
    expect(result).toMatchObject({ kind: "ok", summary: "Fast enough" });
    expect(written).toEqual([{ path: "findings/big-query.md", content: "# Big Query\n\nFast enough\n" }]);
    // file=PATH: every step writes the same file (how a test makes a merge conflict)
    await runner.run(runRequest({ input: 'Cover "x" for this request:\n@offline file=notes.md' }), recordingSink());
    expect(written[1].path).toBe("notes.md");
  });

  it("fails transiently or fatally on request, and only for the first N attempts", async () => {
    const { runner, sleeps } = testRuntime();
    const step = { planId: "p1", stepIndex: 1, title: "t" };
    const transient = await runner.run(runRequest({ input: "x\n@offline fail=transient fail_attempts=2", step }), recordingSink());
    expect(transient).toMatchObject({ kind: "failed", transient: true });
    if (transient.kind === "failed") expect(transient.reason).toContain("503");
    expect(sleeps).toEqual([]); // simulated failures are for the executor: no in-run retry
    expect(await runner.run(runRequest({ input: "x\n@offline fail=transient fail_attempts=2", step }), recordingSink())).toMatchObject({
      kind: "failed",
    });
    expect(await runner.run(runRequest({ input: "x\n@offline fail=transient fail_attempts=2", step }), recordingSink())).toMatchObject({
      kind: "ok",
    });
    const fatal = await runner.run(runRequest({ input: "y\n@offline fail=fatal" }), recordingSink());
    expect(fatal).toMatchObject({ kind: "failed", transient: false });
  });

  it("misbehaves on request: malformed tool arguments twice, or a refusal, each with its cause, for the first N attempts", async () => {
    const { runner } = testRuntime();
    const step = { planId: "p-misbehave", stepIndex: 1, title: "t" };
    const sink = recordingSink();
    const malformed = await runner.run(runRequest({ input: "x\n@offline fail=malformed fail_attempts=1", step }), sink);
    expect(malformed).toMatchObject({ kind: "failed", transient: false, cause: "malformed-tool-calls" });
    expect(sink.logs.filter((entry) => entry.phase === "tool-malformed")).toHaveLength(2);
    // the second attempt (an escalated one) behaves
    expect(await runner.run(runRequest({ input: "x\n@offline fail=malformed fail_attempts=1", step }), recordingSink())).toMatchObject({
      kind: "ok",
    });
    const refused = await runner.run(runRequest({ input: "y\n@offline fail=refuse" }), recordingSink());
    expect(refused).toMatchObject({ kind: "failed", transient: false, cause: "refused" });
  });

  it("fails a commander synthesis step on request, but never the planner", async () => {
    const { runner } = testRuntime();
    const commander = commanderProfile();
    const synthesis = await runner.run(
      runRequest({ agent: commander, purpose: { kind: "commander-step" }, input: "- a: x\n@offline fail=fatal" }),
      recordingSink(),
    );
    expect(synthesis).toMatchObject({ kind: "failed", transient: false });
    const planner = await runner.run(
      runRequest({ agent: commander, purpose: { kind: "commander-chat" }, input: "compare A, B and C\n@offline fail=fatal" }),
      recordingSink(),
    );
    expect(planner).toMatchObject({ kind: "ok", plan: expect.anything() });
  });

  it("blocks with a form, then resumes the same session with the answer", async () => {
    const { runner, sessions } = testRuntime();
    const first = runRequest({ input: "Deploy it\n@offline block=1", step: { planId: "p1", stepIndex: 2, title: "Deploy" } });
    const blocked = await runner.run(first, recordingSink());
    expect(blocked).toMatchObject({
      kind: "blocked",
      form: { title: "Input needed", fields: [{ name: "answer", type: "text", required: true }] },
    });
    expect(await sessions.load(first.runId)).not.toBeNull();

    const resumed = await runner.run(
      runRequest({ ...first, runId: "run-resumed", resume: { previousRunId: first.runId, answer: "use region eu-west" } }),
      recordingSink(),
    );
    expect(resumed).toMatchObject({ kind: "ok" });
    if (resumed.kind === "ok") expect(resumed.summary).toContain("use region eu-west");
    const session = await sessions.load("run-resumed");
    expect(session!.length).toBeGreaterThan((await sessions.load(first.runId))!.length);
  });

  it("sleeps, and an abort ends the run as failed, not transient", async () => {
    const { runner } = testRuntime();
    const controller = new AbortController();
    const started = Date.now();
    const pending = runner.run(runRequest({ input: "slow\n@offline sleep=5000", signal: controller.signal }), recordingSink());
    setTimeout(() => controller.abort(), 30);
    const result = await pending;
    expect(Date.now() - started).toBeLessThan(2000);
    expect(result).toMatchObject({ kind: "failed", transient: false });
  });

  it("with pause= streams half its answer, then waits; an abort there ends the run with that half shown", async () => {
    const { runner } = testRuntime();
    const controller = new AbortController();
    const sink = recordingSink();
    const pending = runner.run(runRequest({ input: "Cover oak\n@offline pause=5000", signal: controller.signal }), sink);
    await vi.waitFor(() => expect(sink.text()).toContain("### Findings"), { timeout: 2000 });
    const shown = sink.text();
    controller.abort();
    const result = await pending;
    expect(result).toMatchObject({ kind: "failed", transient: false });
    // half of it, not the whole answer
    expect(shown).not.toContain("offline model: deterministic placeholder answer");
  });

  it("raises a retryable APICallError for transient failures", async () => {
    const { createOfflineModel } = await import("./offline-model.ts");
    const model = createOfflineModel();
    const error = await Promise.resolve(
      model.doGenerate({
        prompt: [{ role: "user", content: [{ type: "text", text: "## Your task\nx\n@offline fail=transient" }] }],
        tools: [],
      }),
    ).catch((e: unknown) => e);
    expect(APICallError.isInstance(error) && error.isRetryable && error.statusCode === 503).toBe(true);
  });
});

describe("abortableSleep", () => {
  const realSetTimeout = globalThis.setTimeout;
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.restoreAllMocks();
  });

  /** timers that fire after half the time asked: Node's fire up to a millisecond early */
  function earlyTimers() {
    vi.stubGlobal("setTimeout", (callback: () => void, ms: number) => realSetTimeout(callback, Math.floor(ms / 2)));
  }

  it("waits at least the time asked by the clock, even when its timer fires early", async () => {
    earlyTimers();
    const started = performance.now();
    await abortableSleep(40, undefined);
    expect(performance.now() - started).toBeGreaterThanOrEqual(40);
  });

  it("sets its timer to wake a millisecond early, and waits out the rest turn by turn", async () => {
    // a clock of the test's own: time moves only when a timer fires or the loop turns, so
    // what the sleep asks for does not depend on how busy the machine is
    let now = 1_000;
    vi.spyOn(performance, "now").mockImplementation(() => now);
    const asked: { at: number; ms: number }[] = [];
    let turns = 0;
    vi.stubGlobal("setTimeout", (callback: () => void, ms: number) => {
      asked.push({ at: now, ms });
      return realSetTimeout(() => {
        now += ms;
        callback();
      }, 0);
    });
    vi.stubGlobal("setImmediate", (callback: () => void) => {
      turns++;
      return realSetTimeout(() => {
        now += 0.4;
        callback();
      }, 0);
    });
    await abortableSleep(40.5, undefined);
    expect(now - 1_000).toBeGreaterThanOrEqual(40.5);
    // a millisecond short of the 40.5 ms left, so no timer can wake past the time
    expect(asked).toEqual([{ at: 1_000, ms: 39 }]);
    // the last 1.5 ms are the loop's turns: four of 0.4 ms
    expect(turns).toBe(4);
  });

  it("is aborted while it waits out the rest of an early timer", async () => {
    earlyTimers();
    const controller = new AbortController();
    const pending = abortableSleep(200, controller.signal);
    realSetTimeout(() => controller.abort(), 150); // past the first timer (100 ms), inside the rest
    await expect(pending).rejects.toMatchObject({ name: "AbortError" });
  });
});
