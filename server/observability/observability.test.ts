/** The pure parts of logs and traces: the log level, the console face, trace context strings, ids. */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import pino from "pino";
import { Writable } from "node:stream";
import { consoleLike, logFor, logLevelFrom } from "./log.ts";
import { fromTraceparent, planSpanId, planTraceId, stepSpanId, toTraceparent } from "./tracing.ts";

describe("LOG_LEVEL", () => {
  it("defaults to info, and to warn under the tests", () => {
    expect(logLevelFrom({})).toBe("info");
    expect(logLevelFrom({ VITEST: "true" })).toBe("warn");
    expect(logLevelFrom({ LOG_LEVEL: " Debug " })).toBe("debug");
  });
  it("refuses an unknown level by name", () => {
    expect(() => logLevelFrom({ LOG_LEVEL: "verbose" })).toThrow(/LOG_LEVEL: "verbose" is not one of fatal, error, warn, info/);
  });
});

function capture() {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(String(chunk)));
      done();
    },
  });
  return { lines, logger: pino({ level: "info" }, stream) };
}

describe("child loggers and the console face", () => {
  it("carries the ids that are set, and leaves out the rest", () => {
    const { lines, logger } = capture();
    logFor({ conversationId: "c1", planId: "p1", stepId: null, runId: "r1" }, logger).info("run ended");
    expect(lines[0]).toMatchObject({ conversationId: "c1", planId: "p1", runId: "r1", msg: "run ended" });
    expect(lines[0]).not.toHaveProperty("stepId");
  });
  it("logs console-style calls with the error as `err`", () => {
    const { lines, logger } = capture();
    consoleLike(logger).warn("[sweep]", new Error("database gone"));
    expect(lines[0]).toMatchObject({ level: 40, msg: "[sweep]", err: { message: "database gone" } });
  });
});

describe("trace context", () => {
  const hex = (length: number) => fc.stringMatching(new RegExp(`^[0-9a-f]{${length}}$`)).filter((value) => !/^0+$/.test(value));
  it("round-trips a span context through a W3C traceparent", () => {
    fc.assert(
      fc.property(hex(32), hex(16), fc.constantFrom(0, 1), (traceId, spanId, traceFlags) => {
        const value = toTraceparent({ traceId, spanId, traceFlags });
        expect(value).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]$/);
        expect(fromTraceparent(value)).toEqual({ traceId, spanId, traceFlags, isRemote: true });
      }),
    );
  });
  it("reads nothing from a value that is not a traceparent", () => {
    for (const value of [
      null,
      undefined,
      "",
      "00-abc-def-01",
      `00-${"0".repeat(32)}-${"1".repeat(16)}-01`,
      `01-${"a".repeat(32)}-${"b".repeat(16)}-01`,
    ])
      expect(fromTraceparent(value)).toBeNull();
  });
  it("names a plan's spans by its ids: the same on every process, different across plans and steps", () => {
    expect(planTraceId("plan-1")).toMatch(/^[0-9a-f]{32}$/);
    expect(planTraceId("plan-1")).toBe(planTraceId("plan-1"));
    expect(planTraceId("plan-1")).not.toBe(planTraceId("plan-2"));
    expect(planSpanId("x")).toMatch(/^[0-9a-f]{16}$/);
    expect(planSpanId("x")).not.toBe(stepSpanId("x"));
  });
});
