import { afterEach, describe, expect, it } from "vitest";
import { logWithoutStack, serializeError } from "./log.ts";

describe("error serialization", () => {
  it("keeps what says what went wrong and drops the client pg hangs on a dropped connection's error", () => {
    const error = Object.assign(new Error("terminating connection due to administrator command"), {
      code: "57P01",
      client: { secretKey: 123456, connectionParameters: { user: "postgres" } },
    });
    const serialized = serializeError(error) as Record<string, unknown>;
    expect(serialized).toMatchObject({ type: "Error", message: "terminating connection due to administrator command", code: "57P01" });
    expect(serialized).not.toHaveProperty("client");
    expect(JSON.stringify(serialized)).not.toContain("secretKey");
  });

  afterEach(() => logWithoutStack(() => false));

  it("writes an outage's errors without their stack, and every other error with it", () => {
    logWithoutStack((error) => (error as { code?: unknown }).code === "57P01");
    const outage = serializeError(Object.assign(new Error("terminating connection due to administrator command"), { code: "57P01" }));
    expect(outage).toMatchObject({ message: "terminating connection due to administrator command", code: "57P01" });
    expect(outage).not.toHaveProperty("stack");
    expect(serializeError(new Error("a bug"))).toHaveProperty("stack");
  });

  it("holds for another copy of this module too (Next bundles its route handlers with their own)", async () => {
    logWithoutStack((error) => (error as { code?: unknown }).code === "57P01");
    // a query makes the test runner load a second instance of the module, as a second bundle would
    const specifier = "./log.ts?next-bundle";
    const copy = (await import(/* @vite-ignore */ specifier)) as typeof import("./log.ts");
    expect(copy.serializeError).not.toBe(serializeError);
    expect(copy.serializeError(Object.assign(new Error("terminating connection"), { code: "57P01" }))).not.toHaveProperty("stack");
  });

  it("leaves out the stack an outage error carries again in its body (better-auth's APIError)", () => {
    logWithoutStack((error) => (error as { code?: unknown }).code === "57P01");
    const body = { message: "Failed to get session", stack: "caused by: …" };
    const serialized = serializeError(Object.assign(new Error("Failed to get session"), { code: "57P01", body })) as Record<
      string,
      unknown
    >;
    expect(serialized.body).toMatchObject({ message: "Failed to get session" });
    expect(serialized.body).not.toHaveProperty("stack");
    expect(body.stack, "the error itself is left as it was").toBe("caused by: …");
  });
});
