import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { plural } from "./plural.ts";

describe("plural", () => {
  it("says one step, and steps for every other count", () => {
    expect(plural(1, "step")).toBe("1 step");
    expect(plural(0, "step")).toBe("0 steps");
    expect(plural(2, "reply", "replies")).toBe("2 replies");
    fc.assert(
      fc.property(fc.nat(10_000), (count) => {
        expect(plural(count, "step")).toBe(count === 1 ? "1 step" : `${count} steps`);
      }),
    );
  });
});
