import { describe, expect, it } from "vitest";
import { afterMessageFrom, stillTyping } from "./typing.ts";

describe("typing", () => {
  it("forgets a typist once their notice expires", () => {
    const typists = { a: { name: "Alice", until: 1_000 }, b: { name: "Bob", until: 2_000 } };
    expect(Object.keys(stillTyping(typists, 999))).toEqual(["a", "b"]);
    expect(Object.keys(stillTyping(typists, 1_000))).toEqual(["b"]);
    expect(stillTyping(typists, 2_000)).toEqual({});
  });

  it("forgets a typist as soon as their message arrives, and no one else", () => {
    const typists = { a: { name: "Alice", until: 9_000 }, b: { name: "Bob", until: 9_000 } };
    expect(Object.keys(afterMessageFrom(typists, "a"))).toEqual(["b"]);
    // someone who was not typing (or an agent's message) changes nothing, not even the object
    expect(afterMessageFrom(typists, "c")).toBe(typists);
    expect(afterMessageFrom(typists, undefined)).toBe(typists);
  });
});
