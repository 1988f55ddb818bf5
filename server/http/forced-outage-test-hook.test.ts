import { describe, expect, it } from "vitest";
import { isDatabaseUnreachable } from "../db/database-errors.ts";
import { forcedOutageError, outageForcedForTests } from "./forced-outage-test-hook.ts";

describe("the forced-outage test hook", () => {
  it("is off unless the server was started with it, whatever the cookie says", () => {
    expect(outageForcedForTests("1", {})).toBe(false);
    expect(outageForcedForTests("1", { BATON_TEST_HOOK_FORCED_OUTAGE: "true" })).toBe(false);
  });

  it("forces an outage only for a request carrying its cookie", () => {
    const on = { BATON_TEST_HOOK_FORCED_OUTAGE: "1" };
    expect(outageForcedForTests("1", on)).toBe(true);
    expect(outageForcedForTests(undefined, on)).toBe(false);
    expect(outageForcedForTests("0", on)).toBe(false);
  });

  it("fails reads as a refused connection does", () => {
    expect(isDatabaseUnreachable(forcedOutageError())).toBe(true);
  });
});
