import { describe, expect, it } from "vitest";
import { stillTyping } from "./typing.ts";

describe("typing", () => {
  it("forgets a typist once their notice expires", () => {
    const typists = { a: { name: "Alice", until: 1_000 }, b: { name: "Bob", until: 2_000 } };
    expect(Object.keys(stillTyping(typists, 999))).toEqual(["a", "b"]);
    expect(Object.keys(stillTyping(typists, 1_000))).toEqual(["b"]);
    expect(stillTyping(typists, 2_000)).toEqual({});
  });
});
