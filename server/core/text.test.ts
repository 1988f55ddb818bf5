import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isStorableText, REPLACEMENT_CHARACTER, toStorableJson, toStorableText, truncateText } from "./text.ts";

/** strings built from code units, so lone surrogates and NUL turn up often */
const hostile = fc
  .array(
    fc.oneof(
      fc.constantFrom("\u0000", "\uD83D", "\uDE00", "😀", "👩‍👩‍👧", "é", "e\u0301\u0302", "\u202E", "🇫🇷", "a", " ", "\\u0000"),
      fc.string({ unit: "binary" }),
      fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code)) }),
    ),
  )
  .map((parts) => parts.join(""));
const clean = fc.string({ unit: fc.oneof(fc.constantFrom("😀", "👩‍👩‍👧", "e\u0301", "🇫🇷"), fc.string({ unit: "grapheme", maxLength: 1 })) });

describe("toStorableText", () => {
  it("leaves clean text as it is and repairs anything else into storable text of the same length", () => {
    fc.assert(
      fc.property(hostile, (text) => {
        const out = toStorableText(text);
        expect(isStorableText(out)).toBe(true);
        expect(out.length).toBe(text.length);
        if (isStorableText(text)) expect(out).toBe(text);
      }),
    );
  });

  it("replaces NUL and each half of a broken emoji by U+FFFD", () => {
    expect(toStorableText("a\u0000b")).toBe(`a${REPLACEMENT_CHARACTER}b`);
    expect(toStorableText("x\uD83D")).toBe(`x${REPLACEMENT_CHARACTER}`);
    expect(toStorableText("\uDE00y")).toBe(`${REPLACEMENT_CHARACTER}y`);
    expect(toStorableText("😀")).toBe("😀");
  });
});

describe("truncateText", () => {
  it("is always storable, never longer than the limit, and a prefix of clean input", () => {
    fc.assert(
      fc.property(hostile, fc.nat(300), fc.constantFrom("", "…", "\n…(truncated)"), (text, max, ellipsis) => {
        const out = truncateText(text, max, { ellipsis });
        expect(isStorableText(out)).toBe(true);
        expect(out.length).toBeLessThanOrEqual(Math.max(max, 0));
        const kept = out.length < text.length && out.endsWith(ellipsis) ? out.slice(0, out.length - ellipsis.length) : out;
        expect(toStorableText(text).startsWith(kept)).toBe(true);
        if (text.length <= max) expect(out).toBe(toStorableText(text));
      }),
    );
  });

  it("never splits a user-perceived character of clean input", () => {
    fc.assert(
      fc.property(clean, fc.nat(80), (text, max) => {
        const kept = truncateText(text, max);
        const graphemes = [...new Intl.Segmenter(undefined, { granularity: "grapheme" }).segment(text)].map((part) => part.index);
        expect([...graphemes, text.length]).toContain(kept.length);
      }),
    );
  });

  it("cuts a thousand emoji on a whole emoji, with the ellipsis inside the limit", () => {
    const out = truncateText("😀".repeat(1000), 200, { ellipsis: "…" });
    expect(out).toBe(`${"😀".repeat(99)}…`);
    expect(truncateText("ab😀", 3)).toBe("ab");
    expect(truncateText("👩‍👩‍👧x", 5)).toBe("");
  });

  it("refuses a limit that is not a whole number", () => {
    expect(() => truncateText("abc", -1)).toThrow(RangeError);
    expect(() => truncateText("abc", 1.5)).toThrow(RangeError);
  });
});

function allStrings(value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (Array.isArray(value)) return value.flatMap(allStrings);
  if (value && typeof value === "object") return Object.entries(value).flatMap(([key, item]) => [key, ...allStrings(item)]);
  return [];
}

describe("toStorableJson", () => {
  it("repairs every string, keys included, and keeps the shape", () => {
    fc.assert(
      fc.property(fc.jsonValue(), hostile, (value, bad) => {
        const dirty = { [bad]: [value, bad, { nested: bad }] };
        const out = toStorableJson(dirty);
        expect(allStrings(out).every(isStorableText)).toBe(true);
        expect(Object.keys(out)).toEqual([toStorableText(bad)]);
      }),
    );
  });
});
