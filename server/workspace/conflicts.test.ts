import { describe, expect, it } from "vitest";
import { describeConflicts, parseConflictHunks, parseMergeTreeOutput } from "./conflicts.ts";
import { commitTrailers, slotBranch, SlotNameError } from "./naming.ts";

const TREE = "8c296f52d1920c7209779976338f16fe0a3995d7";

describe("merge-tree output", () => {
  it("reads the tree and the conflicted paths, once each", () => {
    const stdout = `${TREE}\0src/a.ts\0src/a.ts\0b c.txt\0\0Auto-merging src/a.ts\n\0`;
    expect(parseMergeTreeOutput(stdout)).toEqual({ tree: TREE, conflicted: ["src/a.ts", "b c.txt"] });
  });
  it("reads a clean merge", () => {
    expect(parseMergeTreeOutput(`${TREE}\0`)).toEqual({ tree: TREE, conflicted: [] });
  });
  it("refuses output without a tree id", () => {
    expect(() => parseMergeTreeOutput("fatal: nope")).toThrow(/no tree id/);
  });
});

describe("conflict hunks", () => {
  it("finds each hunk with its line and both sides, diff3 base left out", () => {
    const text = [
      "keep",
      "<<<<<<< ours",
      "a",
      "||||||| base",
      "o",
      "=======",
      "b",
      "c",
      ">>>>>>> theirs",
      "mid",
      "<<<<<<< x",
      "=======",
      "y",
      ">>>>>>> y",
    ].join("\n");
    expect(parseConflictHunks(text)).toEqual([
      { line: 2, ours: ["a"], theirs: ["b", "c"] },
      { line: 11, ours: [], theirs: ["y"] },
    ]);
  });
  it("finds none in a file without markers", () => {
    expect(parseConflictHunks("a\n=======\nb")).toEqual([]);
  });
  it("describes conflicts by file and line", () => {
    expect(
      describeConflicts([
        { path: "a.ts", hunks: [{ line: 3, ours: [], theirs: [] }] },
        { path: "bin", hunks: [] },
      ]),
    ).toBe("a.ts: 1 conflicting hunk(s) at line 3\nbin: 0 conflicting hunk(s) (add/delete or binary)");
  });
});

describe("slot names", () => {
  it("names the branch after plan and step", () => {
    expect(slotBranch({ planId: "cm1abc", stepId: "3" })).toBe("baton/cm1abc-3");
  });
  it("refuses ids that are not one plain ref component", () => {
    for (const stepId of ["", "../x", "a b", "a:b", "x".repeat(65), "a/b"]) {
      expect(() => slotBranch({ planId: "p", stepId })).toThrow(SlotNameError);
    }
  });
  it("puts the run in the trailers only when known", () => {
    expect(commitTrailers({ planId: "p", stepId: "2" })).toEqual(["Baton-Plan: p", "Baton-Step: 2"]);
    expect(commitTrailers({ planId: "p", stepId: "2", runId: "r", agentHandle: "dev" })).toContain("Baton-Run: r");
  });
});
