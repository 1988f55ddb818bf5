import { describe, expect, it } from "vitest";
import { BatonError, conflict, hasErrorCode, isBatonError, notFound } from "./errors.ts";

describe("isBatonError", () => {
  it("recognises the family by its marker, not by its message or a code field", () => {
    expect(isBatonError(notFound("plan"))).toBe(true);
    expect(isBatonError(new BatonError("rate_limited", "slow down"))).toBe(true);
    expect(isBatonError(Object.assign(new Error("plan was not found"), { code: "not_found" }))).toBe(false);
    expect(isBatonError({ code: "conflict", message: "x" })).toBe(false);
    expect(isBatonError(null)).toBe(false);
  });

  it("recognises an error made by another copy of the module (Next bundles routes apart from the server)", async () => {
    // a query string makes the module runner load a second, separate instance of the module
    const secondCopy = "./errors.ts?copy";
    const copy = (await import(/* @vite-ignore */ secondCopy)) as typeof import("./errors.ts");
    const foreign = copy.conflict("the plan ended");
    expect(foreign).not.toBeInstanceOf(BatonError);
    expect(isBatonError(foreign)).toBe(true);
    expect(hasErrorCode(foreign, "conflict")).toBe(true);
  });

  it("hasErrorCode compares the code", () => {
    expect(hasErrorCode(conflict("x"), "conflict")).toBe(true);
    expect(hasErrorCode(conflict("x"), "not_found")).toBe(false);
  });
});
