/**
 * The server-level measurements. Every figure comes from the server's own clocks
 * (model-call stamps in the run log, plan and event timestamps) or, where a user's
 * moment is meant (a plan submitted, an event received), from the benchmark's clock
 * on the same machine. Nothing polls while a plan runs: plan ends arrive by socket,
 * and the step logs are read after the plan ended.
 */
import { chain, criticalPathMs, toPlan, type TimedStep } from "../dags.ts";
import { apiClient, connectSocket, signUp, watchPlans, type ApiClient, type BatonSocket, type ServerMetrics } from "./client.ts";
import type { BatonServer } from "./launch.ts";
import { geomean, heavyTailedDag, makespanBreakdown, median, quantile, type MakespanBreakdown } from "./workloads.ts";
import type { ConversationEventDTO } from "../../server/protocol/events.ts";

const UNBOUNDED = 200;

export interface Session {
  api: ApiClient;
  server: BatonServer;
  cookie: string;
  conversationId: string;
  watcher: BatonSocket;
  plans: ReturnType<typeof watchPlans>;
}

/** A person signs up, raises the agents' concurrency, opens a conversation and watches it. */
export async function openSession(server: BatonServer, title: string, person?: Awaited<ReturnType<typeof signUp>>): Promise<Session> {
  const user = person ?? (await signUp(server.baseURL));
  if (!person) await user.raiseAgentConcurrency(UNBOUNDED);
  const conversationId = await user.createConversation(title);
  const token = await user.createApiToken();
  const watcher = await connectSocket(server.baseURL, user.cookie, conversationId, "10.78.0.1");
  return { api: apiClient(server, token), server, cookie: user.cookie, conversationId, watcher, plans: watchPlans(watcher) };
}

export interface ModelSpan {
  start: number;
  end: number;
  /** the step's (last) run as the executor recorded it: created in the dispatching unit, ended in the finishing one */
  runStartedAt: number;
  runEndedAt: number;
}

/** Each step's model work, from the "model-timing" line of its run log. */
async function modelSpans(api: ApiClient, planId: string, indexes: number[]): Promise<Map<number, ModelSpan>> {
  const spans = new Map<number, ModelSpan>();
  for (const index of indexes) {
    const detail = await api.step(planId, index);
    const line = detail.log.filter((entry) => entry.phase === "model-timing").at(-1);
    const data = line?.data as { firstCallStartedAt?: string; lastCallEndedAt?: string | null } | undefined;
    if (!data?.firstCallStartedAt || !data.lastCallEndedAt) throw new Error(`plan ${planId} step ${index}: no model-timing in its log`);
    const run = detail.runs.at(-1);
    spans.set(index, {
      start: Date.parse(data.firstCallStartedAt),
      end: Date.parse(data.lastCallEndedAt),
      runStartedAt: Date.parse(run?.startedAt ?? ""),
      runEndedAt: Date.parse(run?.endedAt ?? ""),
    });
  }
  return spans;
}

export interface PlanRun {
  planId: string;
  /** CPU the server process spent from submit to the plan's end (the bench's reads excluded) */
  serverCpuMs: number;
  submittedAt: number;
  /** the plan's createdAt: stamped by the unit that inserted it */
  createdAt: number;
  endedAt: number;
  spans: Map<number, ModelSpan>;
}

export async function runPlan(
  session: Session,
  title: string,
  steps: TimedStep[],
  maxParallel: number,
  readSpans = true,
): Promise<PlanRun> {
  const cpuBefore = (await session.api.metrics()).cpuMs;
  const submittedAt = Date.now();
  const { id } = await session.api.submitPlan(session.conversationId, toPlan(title, steps, maxParallel));
  const status = await session.plans.ended(id);
  const serverCpuMs = (await session.api.metrics()).cpuMs - cpuBefore;
  if (status !== "completed") throw new Error(`${title}: the plan ended ${status}`);
  const plan = await session.api.plan(id);
  const spans = readSpans
    ? await modelSpans(
        session.api,
        id,
        steps.map((step) => step.index),
      )
    : new Map<number, ModelSpan>();
  return { planId: id, serverCpuMs, submittedAt, createdAt: Date.parse(plan.createdAt), endedAt: Date.parse(plan.endedAt!), spans };
}

/** The first model call of a plan, after it was submitted. */
const firstCallAfterSubmit = (run: PlanRun) => Math.min(...[...run.spans.values()].map((span) => span.start)) - run.submittedAt;

/**
 * The same in three parts, by the server's stamps: the request until the creating unit's
 * stamp (HTTP, authentication, validation); → the first run's claim in that unit's
 * statement; → its model call (commit, publish, the run's start).
 */
function submitParts(run: PlanRun): { request: number; dispatch: number; start: number } {
  const first = [...run.spans.values()].reduce((a, b) => (b.start < a.start ? b : a));
  return {
    request: run.createdAt - run.submittedAt,
    dispatch: first.runStartedAt - run.createdAt,
    start: first.start - first.runStartedAt,
  };
}

export interface HopFigures {
  hops: number[];
  /**
   * each hop in three parts, by the server's stamps: the model's end → the finishing
   * unit's stamp (runtime tail, unit entry and its read); → the next run's creation in
   * that unit (reconcile); → the next model call (the write, commit, start of the run)
   */
  parts: { tail: number[]; decide: number[]; start: number[] };
  /** server CPU per step of a 20-step chain, the plan's submission included */
  cpuPerStepMs: number[];
  submitToFirstCall: number[];
  submitParts: SubmitParts;
}

/** submissions in three parts (submitParts), one entry per plan */
export interface SubmitParts {
  request: number[];
  dispatch: number[];
  start: number[];
}

function pushSubmitParts(parts: SubmitParts, run: PlanRun): void {
  const split = submitParts(run);
  parts.request.push(split.request);
  parts.dispatch.push(split.dispatch);
  parts.start.push(split.start);
}

/** A hop in three parts by the server's stamps (HopFigures.parts): `before` ended, `after` was dispatched in its unit. */
function pushHopParts(parts: HopFigures["parts"], before: ModelSpan, after: ModelSpan): void {
  parts.tail.push(before.runEndedAt - before.end);
  parts.decide.push(after.runStartedAt - before.runEndedAt);
  parts.start.push(after.start - after.runStartedAt);
}

/** A chain's hops: each step's model span with the next step's (the hop is `after.start - before.end`). */
export function chainHops(run: PlanRun): { before: ModelSpan; after: ModelSpan }[] {
  const hops = [];
  for (let index = 2; index <= run.spans.size; index++) hops.push({ before: run.spans.get(index - 1)!, after: run.spans.get(index)! });
  return hops;
}

/** Chains of 20 steps that take no time: all that is left between two model calls is Baton. */
export async function measureHops(session: Session, chains = 3): Promise<HopFigures> {
  await runPlan(session, "warm-up chain", chain(20), 1);
  const hops: number[] = [];
  const parts: HopFigures["parts"] = { tail: [], decide: [], start: [] };
  const submitToFirstCall: number[] = [];
  const submit: SubmitParts = { request: [], dispatch: [], start: [] };
  const cpuPerStepMs: number[] = [];
  for (let i = 0; i < chains; i++) {
    const run = await runPlan(session, `chain ${i + 1}`, chain(20), 1);
    for (const { before, after } of chainHops(run)) {
      hops.push(after.start - before.end);
      pushHopParts(parts, before, after);
    }
    submitToFirstCall.push(firstCallAfterSubmit(run));
    pushSubmitParts(submit, run);
    cpuPerStepMs.push(run.serverCpuMs / 20);
  }
  return { hops, parts, submitToFirstCall, submitParts: submit, cpuPerStepMs };
}

export interface MakespanFigures {
  ratios: { seed: number; makespanMs: number; criticalMs: number; ratio: number; breakdown: MakespanBreakdown }[];
  geomean: number;
  worst: number;
  submitToFirstCall: number[];
  submitParts: SubmitParts;
  /** the hops on the paths the DAGs took, in the chain's three parts (HopFigures.parts) */
  hopParts: HopFigures["parts"];
}

/**
 * Random DAGs (heavy-tailed short steps unless `dag` says otherwise), parallelism
 * unbounded: makespan from submit to the plan's end, over the critical path.
 */
export async function measureMakespan(
  session: Session,
  seeds: number[],
  workload: { name: string; dag: (seed: number) => TimedStep[] } = { name: "heavy-tailed DAG", dag: heavyTailedDag },
): Promise<MakespanFigures> {
  const ratios: MakespanFigures["ratios"] = [];
  const submitToFirstCall: number[] = [];
  const submit: SubmitParts = { request: [], dispatch: [], start: [] };
  const hopParts: HopFigures["parts"] = { tail: [], decide: [], start: [] };
  for (const seed of seeds) {
    const steps = workload.dag(seed);
    const run = await runPlan(session, `${workload.name} ${seed}`, steps, UNBOUNDED);
    const criticalMs = criticalPathMs(steps);
    const makespanMs = run.endedAt - run.submittedAt;
    const breakdown = makespanBreakdown(steps, run.spans, run);
    ratios.push({ seed, makespanMs, criticalMs, ratio: makespanMs / criticalMs, breakdown });
    breakdown.path
      .slice(1)
      .forEach((beforeIndex, i) => pushHopParts(hopParts, run.spans.get(beforeIndex)!, run.spans.get(breakdown.path[i])!));
    submitToFirstCall.push(firstCallAfterSubmit(run));
    pushSubmitParts(submit, run);
  }
  const values = ratios.map((r) => r.ratio);
  return { ratios, geomean: geomean(values), worst: Math.max(...values), submitToFirstCall, submitParts: submit, hopParts };
}

export interface FanOutFigures {
  clients: number;
  samples: number;
  p50: number;
  p99: number;
  max: number;
  /** CPU the plan's server spent per step of the watched chain (its 10 ms steps are idle time) */
  serverCpuPerStepMs: number;
  /** per server the clients were connected to (index into the servers given) */
  perServer: { p50: number; p99: number; samples: number }[];
}

/**
 * `clients` sockets, spread round-robin over `servers` (all on the same database), watch
 * a 20-step chain of 10 ms steps run on the session's server, after a 10-step chain they
 * watch unrecorded (as every other row warms up first: the first events to 100 sockets
 * pay for compiling that path, which showed as a p99 up to twice the next chain's).
 * Latency: an event's arrival at a client minus the server's stamp of the event
 * (createdAt: when the unit wrote it).
 */
export async function measureFanOut(session: Session, servers: BatonServer[], clients = 100): Promise<FanOutFigures> {
  const sockets: BatonSocket[] = [];
  const latencies: number[][] = servers.map(() => []);
  let recording = false;
  let serverCpuPerStepMs: number;
  try {
    for (let i = 0; i < clients; i++) {
      const server = servers[i % servers.length];
      const socket = await connectSocket(server.baseURL, session.cookie, session.conversationId, `10.77.${i >> 8}.${i & 255}`);
      const bucket = latencies[i % servers.length];
      socket.on("conversation-events", (events: ConversationEventDTO[]) => {
        if (!recording) return;
        const now = Date.now();
        for (const event of events) if (event.type === "step-updated") bucket.push(now - Date.parse(event.createdAt));
      });
      sockets.push(socket);
    }
    await runPlan(session, "fan-out warm-up", chain(10, 10), 1, false);
    // the warm-up's last events may still be on their way
    await new Promise((resolve) => setTimeout(resolve, 200));
    recording = true;
    const watched = await runPlan(session, "fan-out chain", chain(20, 10), 1);
    serverCpuPerStepMs = watched.serverCpuMs / 20;
    // the last events may still be on their way to the slowest client
    await new Promise((resolve) => setTimeout(resolve, 500));
  } finally {
    for (const socket of sockets) socket.close();
  }
  const all = latencies.flat();
  return {
    clients,
    samples: all.length,
    p50: median(all),
    p99: quantile(all, 0.99),
    max: Math.max(...all),
    serverCpuPerStepMs,
    perServer: latencies.map((values) => ({ p50: median(values), p99: quantile(values, 0.99), samples: values.length })),
  };
}

export interface LoadFigures {
  plans: number;
  /** each recorded burst's p99, in the order they ran */
  burstP99s: number[];
  /** the median of burstP99s */
  eventLoopP99: number;
  /** the longest delay in any recorded burst */
  eventLoopMax: number;
  /** prom-client's p99 of the same windows (median), the histogram's 10 ms tick interval included */
  tickIntervalP99: number;
  /** every recorded plan's makespan over its critical path */
  ratios: number[];
}

/** `plans` heavy-tailed DAGs submitted at once into the session's conversation, each awaited to its end. */
function runTogether(session: Session, firstSeed: number, plans: number) {
  return Promise.all(
    Array.from({ length: plans }, async (_, i) => {
      const seed = firstSeed + i;
      const steps = heavyTailedDag(seed);
      const submittedAt = Date.now();
      const { id } = await session.api.submitPlan(session.conversationId, toPlan(`load ${seed}`, steps, UNBOUNDED));
      const status = await session.plans.ended(id);
      if (status !== "completed") throw new Error(`load ${seed}: the plan ended ${status}`);
      return { id, submittedAt, criticalMs: criticalPathMs(steps) };
    }),
  );
}

/**
 * Ten heavy-tailed DAGs at once, `bursts` times, after ten others unrecorded (the first
 * burst of many plans at once pays for compiling those paths, as the other rows warm up
 * first). Each burst is its own window of the server's event-loop delay histogram, as
 * baton_event_loop_delay_seconds reports it: how late its ticks came, without the 10 ms
 * between them that prom-client's figures include (server/ops/event-loop-delay.ts). One
 * burst's p99 swings by a factor of two on this machine, so the row is the median burst.
 */
export async function measureEventLoop(session: Session, bursts: number, plans = 10): Promise<LoadFigures> {
  await runTogether(session, 201, plans);
  const windows: ServerMetrics[] = [];
  const ratios: number[] = [];
  for (let burst = 0; burst < bursts; burst++) {
    await session.api.metrics(); // a scrape starts a new event-loop window
    const runs = await runTogether(session, 101, plans);
    windows.push(await session.api.metrics());
    for (const run of runs) {
      const plan = await session.api.plan(run.id);
      ratios.push((Date.parse(plan.endedAt!) - run.submittedAt) / run.criticalMs);
    }
  }
  const burstP99s = windows.map((window) => window.eventLoopDelayMs.p99);
  return {
    plans,
    burstP99s,
    eventLoopP99: median(burstP99s),
    eventLoopMax: Math.max(...windows.map((window) => window.eventLoopDelayMs.max)),
    tickIntervalP99: median(windows.map((window) => window.tickIntervalMs.p99)),
    ratios,
  };
}
