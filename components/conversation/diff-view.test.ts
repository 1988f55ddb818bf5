import { describe, expect, it } from "vitest";
import { diffFence, splitDiff } from "./diff-view.ts";

const diff = [
  "diff --git a/src/a.ts b/src/a.ts",
  "index 1..2 100644",
  "--- a/src/a.ts",
  "+++ b/src/a.ts",
  "@@ -1 +1 @@",
  "-old",
  "+new",
  "diff --git a/docs/b.md b/docs/b.md",
  "new file mode 100644",
  "--- /dev/null",
  "+++ b/docs/b.md",
  "@@ -0,0 +1 @@",
  "+```js",
  "",
].join("\n");

describe("splitDiff", () => {
  it("cuts a unified diff into one part per file, named by the new path", () => {
    const parts = splitDiff(diff);
    expect(parts.map((part) => part.path)).toEqual(["src/a.ts", "docs/b.md"]);
    expect(parts[0].text).toContain("+new");
    expect(parts[0].text).not.toContain("docs/b.md");
    expect(parts[1].text.endsWith("+```js")).toBe(true);
  });

  it("has no parts for an empty diff or a truncation note alone", () => {
    expect(splitDiff("")).toEqual([]);
    expect(splitDiff("… (diff truncated)")).toEqual([]);
  });
});

describe("diffFence", () => {
  it("fences with more backticks than any run in the text, so the diff cannot close its block", () => {
    expect(diffFence("+a")).toBe("```diff\n+a\n```");
    const fenced = diffFence("+````x\n+```");
    expect(fenced.startsWith("`````diff\n")).toBe(true);
    expect(fenced.endsWith("\n`````")).toBe(true);
  });
});
