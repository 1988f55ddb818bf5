import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { checkDecision, decisionNeedsPlan } from "./commander-decision.ts";
import { makePlan } from "./testing/fixtures.ts";
import type { PlanLimits } from "./validate-plan.ts";

const limits: PlanLimits = { maxSteps: 6, maxInputChars: 100, defaultMaxParallel: 2, defaultMaxRetries: 3 };
const assignees = new Set(["writer", "researcher"]);
const plan = makePlan({ steps: [{ index: 1 }, { index: 2 }] });

describe("checkDecision", () => {
  it("never lets through a retry naming someone outside the conversation, nor a malformed decision", () => {
    fc.assert(
      fc.property(fc.anything(), fc.string({ maxLength: 12 }), (raw, handle) => {
        for (const candidate of [raw, { kind: "retry", assignee: handle }, { kind: "retry", assignee: `@${handle}` }]) {
          const { decision, complaint } = checkDecision({ raw: candidate, assignees, plan: makePlan({ steps: [{ index: 1 }] }), limits });
          if (decision.kind === "retry" && decision.assignee !== undefined) {
            expect(["commander", "user", ...assignees]).toContain(decision.assignee);
          }
          // a complaint always comes with an abort
          if (complaint !== null) expect(decision.kind).toBe("abort");
        }
      }),
    );
  });

  it("examples: an unknown kind aborts quietly; a known handle loses its @; an unknown one is said", () => {
    expect(checkDecision({ raw: { kind: "explode" }, assignees, plan: null, limits })).toEqual({
      decision: { kind: "abort", reason: "the commander gave no valid decision" },
      complaint: null,
    });
    expect(checkDecision({ raw: { kind: "retry", assignee: "@writer", input: "again" }, assignees, plan: null, limits })).toEqual({
      decision: { kind: "retry", assignee: "writer", input: "again" },
      complaint: null,
    });
    expect(checkDecision({ raw: { kind: "retry", assignee: "@ghost" }, assignees, plan: null, limits })).toEqual({
      decision: { kind: "abort", reason: "retry named an unknown assignee @ghost" },
      complaint: {
        body: "The retry named @ghost, who is not in this conversation.",
        notice: { key: "retryNamedOutsider", values: { handle: "ghost" } },
      },
    });
    expect(checkDecision({ raw: { kind: "skip", reason: "not needed" }, assignees, plan: null, limits }).decision).toEqual({
      kind: "skip",
      reason: "not needed",
    });
  });

  it("an append is validated against the plan it extends", () => {
    const good = { kind: "append", steps: [{ index: 3, title: "more", assignee: "writer", input: "go on", wait_for: [2] }] };
    expect(decisionNeedsPlan(good)).toBe(true);
    expect(decisionNeedsPlan({ kind: "skip" })).toBe(false);
    const appended = checkDecision({ raw: good, assignees, plan, limits });
    expect(appended.complaint).toBeNull();
    expect(appended.decision).toMatchObject({ kind: "append", steps: [{ index: 3, assignee: "writer", waitFor: [2] }] });
    const bad = checkDecision({
      raw: { kind: "append", steps: [{ index: 3, title: "x", assignee: "ghost", input: "y" }] },
      assignees,
      plan,
      limits,
    });
    expect(bad.decision.kind).toBe("abort");
    expect(bad.complaint?.body).toMatch(/^The appended steps were rejected: /);
    expect(bad.complaint?.notice.key).toBe("appendRejected");
    expect(() => checkDecision({ raw: good, assignees, plan: null, limits })).toThrow(/needs the plan/);
  });
});
