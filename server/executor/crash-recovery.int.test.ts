/**
 * Durability across a real crash: an executor process is SIGKILLed mid-plan on the
 * embedded database; a new process on the same data directory finishes the plan,
 * re-dispatching the runs that were live exactly once.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, expect, it } from "vitest";
import type { PlanDTO } from "../protocol/dto.ts";
import { openDatabase } from "../db/database.ts";
import { ExecutorProcess } from "./testing/process-handle.ts";
import { soakFigures } from "./testing/soak.ts";
import { waitFor } from "../testing/wait-for.ts";

const dataDir = mkdtempSync(path.join(tmpdir(), "baton-crash-"));
const processes: ExecutorProcess[] = [];
const env = { BATON_DATA_DIR: dataDir, DATABASE_URL: "" };

afterAll(async () => {
  for (const child of processes) await child.kill();
  rmSync(dataDir, { recursive: true, force: true });
});

it("finishes every plan after SIGKILL, re-running lost runs once and never twice at a time", async () => {
  const first = await ExecutorProcess.start(env);
  processes.push(first);
  const conversation = await first.request<{ id: string }>({
    type: "conversation",
    title: "crash",
    agents: ["researcher", "analyst", "writer"],
  });
  const submit = (raw: unknown) => first.request<PlanDTO>({ type: "submit", conversationId: conversation.id, raw });
  const plans = [
    await submit({
      title: "fan-out",
      steps: [
        { index: 1, title: "a", assignee: "researcher", input: "sleep=2000", wait_for: [] },
        { index: 2, title: "b", assignee: "analyst", input: "sleep=2000", wait_for: [] },
        {
          index: 3,
          title: "c",
          assignee: "writer",
          input: "sleep=10 {{step_1.output_summary}} {{step_2.output_summary}}",
          wait_for: [1, 2],
        },
      ],
    }),
    await submit({
      title: "chain",
      steps: [
        { index: 1, title: "a", assignee: "writer", input: "sleep=2000" },
        { index: 2, title: "b", assignee: "researcher", input: "sleep=10" },
      ],
    }),
  ];
  // wait until the slow first steps are really live, then kill the process hard
  await waitFor(async () => {
    const plan = await first.request<PlanDTO>({ type: "plan", planId: plans[0].id });
    return plan.steps.filter((s) => s.status === "in_progress").length === 2 ? true : undefined;
  });
  await first.kill();

  const second = await ExecutorProcess.start(env);
  processes.push(second);
  for (const plan of plans) {
    const final = await waitFor(async () => {
      const current = await second.request<PlanDTO>({ type: "plan", planId: plan.id });
      return current.status === "running" ? undefined : current;
    });
    expect(final.status).toBe("completed");
    expect(final.steps.every((s) => s.status === "done")).toBe(true);
    const runs = await second.request<{ stepId: string; status: string; startedAt: string; endedAt: string | null }[]>({
      type: "runs",
      planId: plan.id,
    });
    for (const s of final.steps) {
      const stepRuns = runs.filter((run) => run.stepId === s.id);
      const lost = stepRuns.filter((run) => run.status === "lost");
      // a step live at the crash ran once more; every other step ran exactly once
      expect(stepRuns.filter((run) => run.status === "succeeded")).toHaveLength(1);
      expect(stepRuns).toHaveLength(1 + lost.length);
      expect(lost.length).toBeLessThanOrEqual(1);
    }
    expect(runs.filter((run) => run.status === "lost").length).toBeGreaterThan(0);
  }
  await second.stop();
});

it("finishes 8 parallel plans contending for full pools after SIGKILL, none left pending", async () => {
  const dir = mkdtempSync(path.join(tmpdir(), "baton-crash-pools-"));
  const local = { BATON_DATA_DIR: dir, DATABASE_URL: "" };
  try {
    const first = await ExecutorProcess.start(local);
    processes.push(first);
    const conversation = await first.request<{ id: string }>({
      type: "conversation",
      title: "pools",
      agents: ["researcher", "analyst", "writer"],
    });
    // 8 plans × 4 parallel steps on agents with 4 slots each: most runs wait in the queue
    const plans = await Promise.all(
      Array.from({ length: 8 }, (_, p) =>
        first.request<PlanDTO>({
          type: "submit",
          conversationId: conversation.id,
          raw: {
            title: `p${p}`,
            steps: [1, 2, 3, 4].map((index) => ({
              index,
              title: `s${index}`,
              assignee: ["researcher", "analyst", "writer"][(p + index) % 3],
              input: `sleep=400 ${p}.${index}`,
              wait_for: [],
            })),
          },
        }),
      ),
    );
    await waitFor(async () =>
      (await first.request<PlanDTO>({ type: "plan", planId: plans[0].id })).steps.some((s) => s.status === "done") ? true : undefined,
    );
    await first.kill();

    const second = await ExecutorProcess.start(local);
    processes.push(second);
    for (const plan of plans) {
      await waitFor(
        async () => ((await second.request<PlanDTO>({ type: "plan", planId: plan.id })).status === "running" ? undefined : true),
        120_000,
      );
    }
    await second.stop();
    const db = await openDatabase({ dataDir: path.join(dir, "pglite") });
    try {
      const figures = await soakFigures(
        db.prisma,
        plans.map((plan) => plan.id),
      );
      expect(figures.byStatus).toEqual({ completed: 8 });
      expect(figures.stuck).toEqual([]);
      expect(figures.doubleDispatches).toEqual([]);
      expect(figures.lostNotRedispatchedOnce).toEqual([]);
      expect(figures.takeovers).toBeGreaterThan(0);
      for (const { peak, limit } of Object.values(figures.peaks)) expect(peak).toBeLessThanOrEqual(limit);
    } finally {
      await db.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 300_000);
