import { describe, expect, it } from "vitest";
import { corePlanValidator } from "./core-plan-validator.ts";
import { commanderProfile, recordingSink, runRequest, testRuntime } from "./testing/agent-fixture.ts";

const limits = { maxSteps: 20, maxInputChars: 10_000, defaultMaxParallel: 4, defaultMaxRetries: 2 };

describe("offline commander plans against the core validator", () => {
  it("writes a plan that validatePlan accepts for the conversation's roster", async () => {
    const { runner } = testRuntime({ deps: { validatePlan: corePlanValidator(limits) } });
    const result = await runner.run(
      runRequest({ agent: commanderProfile(), purpose: { kind: "commander-chat" }, input: "research Rust, Go and Zig" }),
      recordingSink(),
    );
    expect(result.kind).toBe("ok");
    if (result.kind === "ok") expect(result.plan).toBeDefined();
  });

  it("rejects an assignee outside the roster, naming the step", () => {
    const validate = corePlanValidator(limits);
    const verdict = validate(
      { title: "P", steps: [{ index: 1, title: "A", assignee: "ghost", input: "x" }] },
      runRequest({ agent: commanderProfile() }),
    );
    expect(verdict.ok).toBe(false);
    if (!verdict.ok) expect(verdict.message).toMatch(/step 1/);
  });
});
