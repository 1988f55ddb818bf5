import { APICallError } from "ai";
import { describe, expect, it } from "vitest";
import { classifyModelError, providerFailure, retryAfterMs } from "./retry.ts";

const apiError = (statusCode: number, extra: Partial<ConstructorParameters<typeof APICallError>[0]> = {}) =>
  new APICallError({ message: `status ${statusCode}`, url: "http://x", requestBodyValues: {}, statusCode, ...extra });

describe("model error policy", () => {
  it.each([
    [apiError(429), "transient"],
    [apiError(500), "transient"],
    [apiError(503), "transient"],
    [apiError(529), "transient"],
    [apiError(401), "fatal"],
    [apiError(400), "fatal"],
    [apiError(400, { responseBody: '{"error":{"code":"context_length_exceeded"}}' }), "context-overflow"],
    [apiError(400, { message: "prompt is too long: 210000 tokens > 200000 maximum" }), "context-overflow"],
    [new TypeError("terminated", { cause: Object.assign(new Error("other side closed"), { code: "UND_ERR_SOCKET" }) }), "transient"],
    [Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" }), "transient"],
    [{ type: "overloaded_error", message: "Overloaded" }, "transient"],
    [Object.assign(new Error("stalled"), { name: "TimeoutError" }), "transient"],
    [Object.assign(new Error("aborted"), { name: "AbortError" }), "aborted"],
    [new Error("something else"), "fatal"],
  ])("classifies %s as %s", (error, kind) => {
    expect(classifyModelError(error)).toBe(kind);
  });

  it("reads Retry-After in seconds, milliseconds and as a date", () => {
    expect(retryAfterMs(apiError(429, { responseHeaders: { "retry-after": "3" } }))).toBe(3000);
    expect(retryAfterMs(apiError(429, { responseHeaders: { "retry-after-ms": "250" } }))).toBe(250);
    const now = Date.parse("2030-01-01T00:00:00Z");
    expect(retryAfterMs(apiError(429, { responseHeaders: { "retry-after": "Tue, 01 Jan 2030 00:00:10 GMT" } }), now)).toBe(10_000);
    expect(retryAfterMs(apiError(500))).toBeNull();
  });

  it("tells the core's policy the provider's status and Retry-After; a broken connection has no status", () => {
    expect(providerFailure(apiError(500), "transient")).toEqual({ kind: "transient", httpStatus: 500, retryAfterMs: null });
    expect(providerFailure(apiError(429, { responseHeaders: { "retry-after": "120" } }), "transient")).toEqual({
      kind: "transient",
      httpStatus: 429,
      retryAfterMs: 120_000,
    });
    const cut = new TypeError("terminated", { cause: Object.assign(new Error("other side closed"), { code: "UND_ERR_SOCKET" }) });
    expect(providerFailure(cut, "transient")).toEqual({ kind: "transient", httpStatus: null, retryAfterMs: null });
  });
});
