import { expect, it } from "vitest";
import type { ExecutorContext } from "./context.ts";
import type { RunLaunch } from "./run-launch.ts";
import { recordLostRunsEachIfNeeded, runIdsByConversation, storeRunResult, type ConversationLock } from "./refused-and-lost-runs.ts";

it("groups run ids by conversation, keeping their order", () => {
  const grouped = runIdsByConversation([
    { id: "r1", conversationId: "c1" },
    { id: "r2", conversationId: "c2" },
    { id: "r3", conversationId: "c1" },
  ]);
  expect([...grouped]).toEqual([
    ["c1", ["r1", "r3"]],
    ["c2", ["r2"]],
  ]);
});

it("declares a conversation's runs one unit at a time when the unit for all of them fails", async () => {
  const warnings: unknown[] = [];
  const context = { logger: { info() {}, warn: (...args: unknown[]) => warnings.push(args), error() {} } } as Pick<
    ExecutorContext,
    "logger"
  >;
  // the unit for several runs fails; of the units for one run, the second fails too
  let units = 0;
  const lock: ConversationLock = {
    inConversation: async <T>() => {
      units += 1;
      if (units === 1 || units === 3) throw new Error(`unit ${units} failed`);
      return [`declared by unit ${units}`] as T;
    },
  };
  const lost = await recordLostRunsEachIfNeeded(context as ExecutorContext, lock, {
    conversationId: "c1",
    runIds: ["r1", "r2", "r3"],
    liveHere: () => false,
  });
  expect(units).toBe(4);
  expect(lost).toEqual(["declared by unit 2", "declared by unit 4"]);
  expect(warnings).toHaveLength(2);
});

it("rethrows when a single run's unit fails: there is nothing to split", async () => {
  const lock: ConversationLock = {
    inConversation: async () => {
      throw new Error("refused");
    },
  };
  const context = { logger: console } as Pick<ExecutorContext, "logger">;
  await expect(
    recordLostRunsEachIfNeeded(context as ExecutorContext, lock, { conversationId: "c1", runIds: ["r1"], liveHere: () => false }),
  ).rejects.toThrow("refused");
});

it("a result stored after several tries in an outage is one warning and one line when stored, not one a try", async () => {
  const lines: { level: string; text: unknown }[] = [];
  const at = (level: string) => (text: unknown) => void lines.push({ level, text });
  const context = {
    logger: { info: at("info"), warn: at("warn"), error: at("error") },
    config: { leaseMs: 30_000 },
  } as unknown as ExecutorContext;
  // the connection went: SQLSTATE 57P01, four times, then the write goes through
  let tries = 0;
  const record = async () => {
    tries += 1;
    if (tries <= 4)
      throw Object.assign(new Error("terminating connection due to administrator command"), { severity: "FATAL", code: "57P01" });
  };
  const launch = { request: { runId: "r1", conversationId: "c1" } } as unknown as RunLaunch;
  const lock: ConversationLock = { inConversation: async () => Promise.reject(new Error("not used")) };
  expect(await storeRunResult(context, lock, { launch, record, stopped: () => false })).toEqual({ stored: "as-reported" });
  expect(tries).toBe(5);
  expect(lines.map((line) => line.level)).toEqual(["warn", "info"]);
});
