import { describe, expect, it } from "vitest";
import { assertAdmin } from "./actor.ts";

describe("assertAdmin", () => {
  it("lets an admin through and refuses everyone else with a code the routes map", () => {
    expect(assertAdmin({ id: "a", role: "admin" })).toEqual({ id: "a", role: "admin" });
    expect(() => assertAdmin({ id: "m", role: "member" })).toThrow(expect.objectContaining({ code: "forbidden" }));
    expect(() => assertAdmin(null)).toThrow(expect.objectContaining({ code: "unauthenticated" }));
    expect(() => assertAdmin({ id: "", role: "admin" })).toThrow(expect.objectContaining({ code: "unauthenticated" }));
  });
});
