import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { containsPattern, substringSnippet, substringTerms } from "./search-text.ts";

describe("substringTerms", () => {
  it("reads words, quoted phrases, exclusions and or as websearch syntax does", () => {
    expect(substringTerms('编排 "parallel plan" -draft')).toEqual({
      include: ["编排", "parallel plan"],
      exclude: ["draft"],
      any: false,
    });
    expect(substringTerms("会議 or 회의")).toEqual({ include: ["会議", "회의"], exclude: [], any: true });
    expect(substringTerms('"unclosed phrase')).toEqual({ include: ["unclosed phrase"], exclude: [], any: false });
  });
});

describe("containsPattern", () => {
  it("takes LIKE's own wildcards literally", () => {
    expect(containsPattern("50%_off\\")).toBe("%50\\%\\_off\\\\%");
  });
});

describe("substringSnippet", () => {
  it("marks the term inside a Chinese sentence", () => {
    expect(substringSnippet("并行编排的核心是依赖图", ["编排"])).toEqual([
      { text: "并行", hit: false },
      { text: "编排", hit: true },
      { text: "的核心是依赖图", hit: false },
    ]);
  });

  it("matches case-insensitively and marks every occurrence in the window", () => {
    const hits = substringSnippet("Plan, then PLAN again", ["plan"]).filter((segment) => segment.hit);
    expect(hits.map((segment) => segment.text)).toEqual(["Plan", "PLAN"]);
  });

  it("never cuts a character in half and keeps the text in order", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: "grapheme", maxLength: 300 }),
        fc.string({ unit: "grapheme", minLength: 1, maxLength: 4 }),
        (body, term) => {
          const text = substringSnippet(body, [term])
            .map((segment) => segment.text)
            .join("")
            .replace(/^… /, "")
            .replace(/ …$/, "");
          expect(body.includes(text)).toBe(true);
          expect(text).toBe(Array.from(text).join(""));
          expect(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(text)).toBe(false);
        },
      ),
    );
  });
});
