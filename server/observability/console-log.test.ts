import { Writable } from "node:stream";
import pino from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { routeConsoleToLog } from "./console-log.ts";

const saved = { ...console };
afterEach(() => Object.assign(console, saved));

describe("routeConsoleToLog", () => {
  it("turns console lines (Next's, a library's) into JSON log lines at the matching level", () => {
    const lines: Record<string, unknown>[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
        done();
      },
    });
    routeConsoleToLog(pino({ level: "debug" }, sink));
    console.log("\u001b[32m▲\u001b[39m Ready in %d ms", 42);
    console.warn("careful", { a: 1 });
    console.error("failed:", new Error("boom"));
    expect(lines[0]).toMatchObject({ level: 30, msg: "▲ Ready in 42 ms" });
    expect(lines[1]).toMatchObject({ level: 40, msg: "careful { a: 1 }" });
    expect(lines[2]).toMatchObject({ level: 50, msg: "failed:", err: { message: "boom" } });
  });
});
