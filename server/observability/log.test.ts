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
});
