import { describe, expect, it } from "vitest";
import { readIfReachable } from "./reachable-read.ts";

const connectionRefused = () => Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" });

describe("readIfReachable", () => {
  it("hands back what the read returned", async () => {
    expect(await readIfReachable(async () => 42)).toEqual({ reachable: true, value: 42 });
  });

  it("says the database is unreachable instead of throwing, also when the error is wrapped", async () => {
    expect(await readIfReachable(() => Promise.reject(connectionRefused()))).toEqual({ reachable: false });
    const wrapped = new Error("session lookup failed", { cause: connectionRefused() });
    expect(await readIfReachable(() => Promise.reject(wrapped))).toEqual({ reachable: false });
  });

  it("throws any other error on, unchanged (a redirect, a bug)", async () => {
    const redirect = Object.assign(new Error("NEXT_REDIRECT"), { digest: "NEXT_REDIRECT;replace;/sign-in;307;" });
    await expect(readIfReachable(() => Promise.reject(redirect))).rejects.toBe(redirect);
    const bug = new TypeError("x is undefined");
    await expect(readIfReachable(() => Promise.reject(bug))).rejects.toBe(bug);
  });
});
