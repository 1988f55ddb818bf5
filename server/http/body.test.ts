import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { z } from "zod";
import { HttpError } from "./errors.ts";
import { assertStorableJson, jsonDepthExceeds, MAX_JSON_DEPTH, parseJson, parseJsonText, readLimitedBytes } from "./body.ts";
import { intParam } from "./params.ts";
import { isStorableText } from "../core/text.ts";

// eslint-disable-next-line no-control-regex -- the characters JSON must escape in a string
const JSON_ESCAPED = /["\\\u0000-\u001f]/g;

function refusal(run: () => unknown): HttpError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(HttpError);
    return error as HttpError;
  }
  throw new Error("expected a refusal");
}

/** the nesting depth of a parsed value, the slow and obvious way */
const depthOf = (value: unknown): number =>
  typeof value === "object" && value !== null ? 1 + Math.max(0, ...Object.values(value).map(depthOf)) : 0;

describe("jsonDepthExceeds", () => {
  it("agrees with the parsed value's depth, brackets inside strings included (property)", () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 8 }), fc.integer({ min: 0, max: 8 }), (value, cap) => {
        const text = JSON.stringify(value);
        expect(jsonDepthExceeds(text, cap)).toBe(depthOf(value) > cap);
      }),
      { numRuns: 300 },
    );
  });

  it("ignores brackets and escaped quotes inside strings", () => {
    expect(jsonDepthExceeds(JSON.stringify({ a: '[[[[\\"[[[[' }), 1)).toBe(false);
  });
});

describe("parseJsonText", () => {
  it("refuses nesting past the cap before parsing, naming the cap", () => {
    const error = refusal(() => parseJsonText("[".repeat(500_000) + "]".repeat(500_000)));
    expect(error.status).toBe(400);
    expect(error.message).toContain(String(MAX_JSON_DEPTH));
  });

  it("accepts nesting at the cap", () => {
    expect(() => parseJsonText("[".repeat(MAX_JSON_DEPTH) + "]".repeat(MAX_JSON_DEPTH))).not.toThrow();
  });

  it("refuses __proto__ keys, also spelt with escapes", () => {
    expect(refusal(() => parseJsonText('{"a":{"__proto__":{"x":1}}}')).message).toContain("a.__proto__");
    expect(refusal(() => parseJsonText('{"\\u005f_proto__":1}')).message).toContain("__proto__");
  });

  it("names the path of a NUL or unpaired surrogate in a string or a key", () => {
    expect(refusal(() => parseJsonText('{"list":["ok","a\\u0000"]}')).message).toMatch(/^list\.1: .*NUL/);
    expect(refusal(() => parseJsonText('{"x":"\\ud800"}')).message).toMatch(/^x: .*surrogate/);
    expect(refusal(() => parseJsonText('{"o":{"k\\u0000":1}}')).message).toMatch(/^o: a key/);
    expect(parseJsonText('{"ok":"\\ud83c\\udf89"}')).toEqual({ ok: "🎉" });
  });

  it("never refuses a storable value (property)", () => {
    const texts = (value: unknown): string[] =>
      typeof value === "string"
        ? [value]
        : typeof value === "object" && value !== null
          ? Object.entries(value).flatMap(([key, inner]) => [key, ...texts(inner)])
          : [];
    const storable = fc.jsonValue().filter((value) => texts(value).every((text) => isStorableText(text) && text !== "__proto__"));
    fc.assert(
      fc.property(storable, (value) => {
        expect(() => assertStorableJson(value)).not.toThrow();
      }),
      { numRuns: 200 },
    );
  });
});

describe("parseJsonText on any text (property)", () => {
  it("refuses exactly the values holding unstorable text, whether escaped or raw", () => {
    const texts = (value: unknown): string[] =>
      typeof value === "string"
        ? [value]
        : typeof value === "object" && value !== null
          ? Object.entries(value).flatMap(([key, inner]) => [key, ...texts(inner)])
          : [];
    const keys = (value: unknown): string[] =>
      typeof value === "object" && value !== null
        ? Object.entries(value).flatMap(([key, inner]) => [...(Array.isArray(value) ? [] : [key]), ...keys(inner)])
        : [];
    const unit = fc.oneof(fc.constantFrom("\u0000", "\ud800", "\udc00", "🎉", "a"), fc.string({ maxLength: 3 }));
    const value = fc.jsonValue({ maxDepth: 3 }).chain((base) => fc.tuple(fc.constant(base), fc.string({ unit, maxLength: 4 })));
    let refused = 0;
    fc.assert(
      fc.property(value, fc.boolean(), ([base, extra], escape) => {
        const candidate = { base, extra };
        // JSON.stringify escapes lone surrogates; the raw form keeps them as they are
        const text = escape
          ? JSON.stringify(candidate)
          : `{"base":${JSON.stringify(base)},"extra":"${extra.replace(JSON_ESCAPED, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`)}"}`;
        // a `__proto__` key is refused; a string value that happens to read "__proto__" is plain data
        const parsed: unknown = JSON.parse(text);
        const bad = texts(parsed).some((t) => !isStorableText(t)) || keys(parsed).includes("__proto__");
        if (bad) {
          refused += 1;
          expect(() => parseJsonText(text)).toThrow(HttpError);
        } else expect(parseJsonText(text)).toEqual(JSON.parse(text));
      }),
      { numRuns: 300 },
    );
    expect(refused).toBeGreaterThan(30);
  });
});

describe("parseJson on a request", () => {
  const request = (body: BodyInit, type = "application/json") =>
    new Request("http://baton.test/api/conversations", { method: "POST", headers: { "content-type": type }, body });

  it("accepts application/json and +json types, refuses others with 415", async () => {
    const schema = z.object({ a: z.number() });
    expect(await parseJson(request('{"a":1}', "application/json; charset=utf-8"), schema)).toEqual({ a: 1 });
    expect(await parseJson(request('{"a":1}', "application/merge-patch+json"), schema)).toEqual({ a: 1 });
    await expect(parseJson(request('{"a":1}', "text/plain"), schema)).rejects.toMatchObject({ status: 415 });
    await expect(parseJson(request("a=1", "application/x-www-form-urlencoded"), schema)).rejects.toMatchObject({ status: 415 });
  });

  it("stops reading at the cap", async () => {
    await expect(readLimitedBytes(request("x".repeat(2000)), 1000)).rejects.toMatchObject({ status: 413 });
    expect((await readLimitedBytes(request("x".repeat(1000)), 1000)).byteLength).toBe(1000);
  });
});

describe("intParam", () => {
  it.each(["2147483648", "1e3", "0x10", " 7", "1.5", "", "-1", "99999999999"])("refuses %j as a step index", (value) => {
    expect(refusal(() => intParam(value, { name: "stepIndex", min: 1 })).message).toMatch(/^stepIndex: /);
  });

  it("accepts the bounds and falls back when absent", () => {
    expect(intParam("2147483647", { name: "after", min: 0 })).toBe(2147483647);
    expect(intParam(null, { name: "after", min: 0, fallback: 0 })).toBe(0);
  });
});
