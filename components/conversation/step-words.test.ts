import { describe, expect, it } from "vitest";
import { plainLog } from "./step-words.ts";

describe("plainLog", () => {
  it("shows one commander decision as one tool line, the engine's bookkeeping only in Details", () => {
    // the log a failed step's decision run writes (stored as is, seen in a run of the offline model)
    const log = [
      { phase: "dispatch", message: "attempt 1 sent to @researcher" },
      { phase: "run-failed", message: "offline (HTTP 400): simulated fatal failure" },
      { phase: "model-timing", message: "1 model call" },
      { phase: "reconcile", message: "failed; asking the commander to decide" },
      { phase: "tool-call", message: "decide" },
      { phase: "tool-result", message: "decide" },
      { phase: "model-timing", message: "1 model call, 12 ms" },
      { phase: "reconcile", message: "the commander skips the step" },
    ];
    expect(plainLog(log).map(({ entry, word }) => `${word} ${entry.message}`)).toEqual([
      "started attempt 1 sent to @researcher",
      "failed offline (HTTP 400): simulated fatal failure",
      "tool decide",
    ]);
  });

  it("still shows a tool call that failed or was refused", () => {
    const log = [
      { phase: "tool-call", message: "read_file" },
      { phase: "tool-error", message: "read_file: no such file" },
      { phase: "tool-refused", message: "refused write_file" },
    ];
    expect(plainLog(log).map(({ word }) => word)).toEqual(["tool", "toolFailed", "toolRefused"]);
  });
});
