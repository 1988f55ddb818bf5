/**
 * The soak and chaos test's plans and its checks, shared by the in-process run on
 * the embedded database and the two-process run on PostgreSQL. Plans are random
 * DAGs of 10–20 steps whose inputs carry offline-model directives (work, transient
 * and fatal failures, forms); the checks read only the database, so they judge what
 * really happened whichever process did it.
 */
import type { PrismaClient } from "../../generated/prisma/client.ts";

const HANDLES = ["researcher", "analyst", "writer"] as const;

/** A small seeded generator, so a failing soak can be replayed with the seed it printed. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    // xorshift32
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 2 ** 32;
  };
}

/** One random plan: each step waits for up to two earlier steps; about one step in six misbehaves. */
export function soakPlan(random: () => number, label: string, options: { sleepMaxMs: number; blocks: boolean }) {
  const count = 10 + Math.floor(random() * 11);
  const steps = Array.from({ length: count }, (_, i) => {
    const index = i + 1;
    const waitFor = index === 1 ? [] : [...new Set(Array.from({ length: Math.floor(random() * 3) }, () => 1 + Math.floor(random() * i)))];
    const assignee = random() < 0.08 ? "commander" : HANDLES[Math.floor(random() * HANDLES.length)];
    const directive = [`@offline sleep=${Math.floor(random() * options.sleepMaxMs)}`];
    let onFailure: "continue" | "ask_commander" | "abort_plan" = random() < 0.5 ? "continue" : "ask_commander";
    const trouble = random();
    if (assignee !== "commander") {
      if (trouble < 0.1) directive.push(`fail=transient fail_attempts=${1 + Math.floor(random() * 2)}`);
      else if (trouble < 0.13) directive.push(`fail=fatal fail_attempts=1 decision=${random() < 0.5 ? "retry" : "skip"}`);
      else if (trouble < 0.15) directive.push("fail=fatal");
      else if (trouble < 0.16) {
        directive.push("fail=fatal");
        onFailure = "abort_plan";
      } else if (options.blocks && trouble < 0.18) directive.push("block=1");
    }
    return {
      index,
      title: `${label} step ${index}`,
      assignee,
      input: `Work item ${label}.${index}.\n${directive.join(" ")}`,
      wait_for: waitFor,
      on_failure: onFailure,
    };
  });
  return { title: label, steps };
}

export interface SoakFigures {
  plans: number;
  byStatus: Record<string, number>;
  steps: number;
  runs: number;
  /** runs declared lost (their process died) */
  takeovers: number;
  /** runs that re-did a step after a transient failure or a loss */
  retries: number;
  /** most runs live at one moment, per agent, against its limit, and those runs (to explain a peak over it) */
  peaks: Record<string, { peak: number; limit: number; atPeak: string[] }>;
  /** steps that had two runs live at one moment */
  doubleDispatches: string[];
  /** per conversation: event seq not 1…lastSeq */
  seqGaps: string[];
  /** lost step runs not followed by exactly one new attempt */
  lostNotRedispatchedOnce: string[];
  /** plans still open for another reason than a person's form */
  stuck: string[];
}

/** Everything the soak asserts, read from the rows. */
export async function soakFigures(prisma: PrismaClient, planIds: string[]): Promise<SoakFigures> {
  const plans = await prisma.plan.findMany({
    where: { id: { in: planIds } },
    select: {
      id: true,
      status: true,
      conversationId: true,
      steps: { select: { id: true, index: true, status: true, retryAt: true, liveRunId: true } },
    },
  });
  const runs = await prisma.run.findMany({
    where: { conversationId: { in: [...new Set(plans.map((plan) => plan.conversationId))] } },
    select: {
      id: true,
      agentId: true,
      stepId: true,
      planId: true,
      kind: true,
      status: true,
      attempt: true,
      resumesRunId: true,
      startedAt: true,
      endedAt: true,
      createdAt: true,
    },
  });
  const agents = await prisma.agent.findMany({ select: { id: true, handle: true, concurrency: true } });
  const openForms = await prisma.form.findMany({ where: { planId: { in: planIds }, status: "open" }, select: { planId: true } });

  const byStatus: Record<string, number> = {};
  for (const plan of plans) byStatus[plan.status] = (byStatus[plan.status] ?? 0) + 1;
  const waitingOnPerson = new Set(openForms.map((form) => form.planId));
  const stuck = plans
    .filter((plan) => plan.status === "running" || (plan.status === "paused" && !waitingOnPerson.has(plan.id)))
    .map((plan) => {
      const summary = plan.steps
        .map((step) => step.status)
        .reduce<Record<string, number>>((acc, status) => ({ ...acc, [status]: (acc[status] ?? 0) + 1 }), {});
      const live = runs.filter((run) => run.planId === plan.id && (run.status === "running" || run.status === "queued")).length;
      return `${plan.id} ${plan.status} steps ${JSON.stringify(summary)} live runs ${live}`;
    });

  // a run occupies its pool from the moment it was claimed (startedAt) until it ended
  const now = Date.now();
  const intervals = runs
    .filter((run) => run.startedAt !== null && run.status !== "queued")
    .map((run) => ({ ...run, from: run.startedAt!.getTime(), to: run.endedAt?.getTime() ?? now }));
  const peaks: SoakFigures["peaks"] = {};
  for (const agent of agents) {
    const points = intervals
      // a run stamped as ending when it started held its slot for no time (the database rounds
      // its stamps to the millisecond, a process truncates them)
      .filter((run) => run.agentId === agent.id && run.to > run.from)
      .flatMap((run) => [
        { at: run.from, delta: 1, run },
        { at: run.to, delta: -1, run },
      ])
      // an end and a start in the same millisecond: the slot was handed over, not shared
      .sort((a, b) => a.at - b.at || a.delta - b.delta);
    const live = new Set<(typeof intervals)[number]>();
    let peak = 0;
    let atPeak: string[] = [];
    for (const point of points) {
      if (point.delta > 0) live.add(point.run);
      else live.delete(point.run);
      if (live.size > peak) {
        peak = live.size;
        atPeak = [...live].map(
          (run) =>
            `${run.id} ${run.kind} ${run.status} attempt ${run.attempt} ${run.startedAt!.toISOString()} → ${run.endedAt?.toISOString() ?? "not ended"}`,
        );
      }
    }
    if (points.length > 0) peaks[agent.handle] = { peak, limit: agent.concurrency, atPeak };
  }

  const doubleDispatches: string[] = [];
  const stepRuns = new Map<string, typeof intervals>();
  for (const run of intervals)
    if (run.stepId && run.kind !== "decision") stepRuns.set(run.stepId, [...(stepRuns.get(run.stepId) ?? []), run]);
  for (const [stepId, list] of stepRuns) {
    const sorted = [...list].sort((a, b) => a.from - b.from);
    for (let i = 1; i < sorted.length; i++) {
      if (sorted[i].from < sorted[i - 1].to) doubleDispatches.push(`step ${stepId}: runs ${sorted[i - 1].id} and ${sorted[i].id} overlap`);
    }
  }

  const lostNotRedispatchedOnce: string[] = [];
  const lost = runs.filter((run) => run.status === "lost");
  for (const run of lost) {
    // a blocked run resumed with a form answer continues the same attempt in a new row: not a new dispatch
    const successors = runs.filter(
      (other) =>
        other.resumesRunId === null &&
        other.kind === run.kind &&
        other.attempt === run.attempt + 1 &&
        (run.stepId ? other.stepId === run.stepId : other.planId === run.planId),
    );
    const plan = plans.find((candidate) => candidate.id === run.planId);
    // a plan that ended meanwhile (cancelled, aborted) need not retry anything
    if (successors.length !== 1 && !(plan && successors.length === 0 && plan.status !== "running" && plan.status !== "paused")) {
      // the details a reader needs to tell a double dispatch from a step that legitimately ran again
      const detail = successors
        .map((other) => `${other.id} ${other.status} step ${other.stepId} from ${other.startedAt?.toISOString() ?? "-"}`)
        .join("; ");
      lostNotRedispatchedOnce.push(`run ${run.id} (${run.kind}, attempt ${run.attempt}): ${successors.length} new attempts [${detail}]`);
    }
  }

  const seqGaps: string[] = [];
  for (const conversationId of new Set(plans.map((plan) => plan.conversationId))) {
    const [conversation, events] = await Promise.all([
      prisma.conversation.findUniqueOrThrow({ where: { id: conversationId }, select: { lastSeq: true } }),
      prisma.conversationEvent.findMany({ where: { conversationId }, select: { seq: true }, orderBy: { seq: "asc" } }),
    ]);
    const gapFree = events.length === conversation.lastSeq && events.every((event, i) => event.seq === i + 1);
    if (!gapFree) seqGaps.push(`${conversationId}: ${events.length} events, lastSeq ${conversation.lastSeq}`);
  }

  const stepCount = plans.reduce((sum, plan) => sum + plan.steps.length, 0);
  return {
    plans: plans.length,
    byStatus,
    steps: stepCount,
    runs: runs.length,
    takeovers: lost.length,
    retries: runs.filter((run) => run.stepId && run.kind !== "decision" && run.attempt > 1).length,
    peaks,
    doubleDispatches,
    seqGaps,
    lostNotRedispatchedOnce,
    stuck,
  };
}

/** One line per figure, for the test's output and the report. */
export function describeFigures(label: string, figures: SoakFigures, wallMs: number): string {
  const peaks = Object.entries(figures.peaks)
    .map(([handle, { peak, limit }]) => `${handle} ${peak}/${limit}`)
    .join(", ");
  return [
    `[soak ${label}] ${figures.plans} plans ${JSON.stringify(figures.byStatus)}, ${figures.steps} steps, ${figures.runs} runs, ${(wallMs / 1000).toFixed(1)} s`,
    `[soak ${label}] peak live runs per pool: ${peaks}`,
    `[soak ${label}] takeovers (lost runs) ${figures.takeovers}, step re-runs ${figures.retries}, double dispatches ${figures.doubleDispatches.length}, seq gaps ${figures.seqGaps.length}`,
  ].join("\n");
}
