import { APICallError } from "ai";
import { describe, expect, it } from "vitest";
import { classifyModelError, DEFAULT_RETRY_POLICY, retryAfterMs, retryDelayMs } from "./retry.ts";

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

  it("backs off exponentially with jitter, honours Retry-After, and gives up on a very long one", () => {
    const policy = { ...DEFAULT_RETRY_POLICY, random: () => 1 };
    expect([1, 2, 3, 10].map((n) => retryDelayMs(policy, n, apiError(500)))).toEqual([1000, 2000, 4000, 30_000]);
    expect(retryDelayMs({ ...policy, random: () => 0 }, 1, apiError(500))).toBe(500);
    expect(retryDelayMs(policy, 1, apiError(429, { responseHeaders: { "retry-after": "7" } }))).toBe(7000);
    expect(retryDelayMs(policy, 1, apiError(429, { responseHeaders: { "retry-after": "3600" } }))).toBeNull();
  });
});
