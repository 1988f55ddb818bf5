/**
 * The "run ended" line says what happened to the run's result. Seen on a worker frozen
 * (SIGSTOP) past its runs' lease: the runs were taken over and their steps run again
 * elsewhere, and on resuming the worker wrote "run ended … ok" for each, though the
 * database had refused its results as those of lost runs.
 */
import { afterEach, expect, it, vi } from "vitest";
import type { PrismaClient } from "../generated/prisma/client.ts";
import { log } from "../observability/log.ts";
import type { RunLaunch } from "./run-launch.ts";
import { instrumentRunner, type RecordedEnd } from "./run-telemetry.ts";

afterEach(() => vi.restoreAllMocks());

const launch = {
  request: { runId: "r1", conversationId: "c1" },
  kind: "step",
  agent: { handle: "writer" },
  planId: "p1",
  stepId: "s1",
  stepIndex: 1,
  attempt: 1,
  startedAt: new Date(),
  triggerMessageId: null,
} as unknown as RunLaunch;

async function endedLines(recorded: RecordedEnd) {
  const lines: { level: string; fields: Record<string, unknown>; msg: string }[] = [];
  const at = (level: string) => (fields: Record<string, unknown>, msg: string) => void lines.push({ level, fields, msg });
  const child = { debug() {}, info: at("info"), warn: at("warn"), error: at("error") } as never;
  vi.spyOn(log, "child").mockReturnValue(child);
  const runner = instrumentRunner(
    { run: async () => ({ kind: "ok", output: "done", summary: "done", usage: { tokensIn: 0, tokensOut: 0, cost: 0 } }) } as never,
    {} as PrismaClient,
    launch,
  );
  await runner.run({ ...launch.request, signal: new AbortController().signal }, {} as never);
  expect(lines, "nothing before the result is stored").toEqual([]);
  runner.recorded(recorded);
  return lines;
}

it("a result stored as reported ends with 'run ended' and its outcome", async () => {
  const lines = await endedLines({ stored: "as-reported" });
  expect(lines).toMatchObject([{ level: "info", msg: "run ended", fields: { outcome: "ok" } }]);
});

it("a result settled elsewhere meanwhile says it was discarded, not ok", async () => {
  const lines = await endedLines({ stored: "settled-elsewhere" });
  expect(lines).toHaveLength(1);
  expect(lines[0].fields).toMatchObject({ outcome: "discarded", reported: "ok" });
  expect(lines[0].msg).toMatch(/^run ended: its result was discarded/);
});
