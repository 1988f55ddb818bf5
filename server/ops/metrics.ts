/**
 * Prometheus metrics at `/metrics` (prom-client). Process metrics (heap, GC, the
 * library's event-loop figures) are the library's defaults, plus the event loop's delay
 * without the sampling interval (event-loop-delay.ts); Baton's own are read when scraped: steps, runs
 * and plans by status and pool occupancy from the database (the truth every process
 * shares), live sockets, database-pool use and circuit breakers from this process, and the
 * event metrics counted where runs start and end (instruments.ts). Behind a bearer token
 * (BATON_METRICS_TOKEN, or the API token), compared in constant time.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import type pg from "pg";
import { collectDefaultMetrics, Gauge, Registry } from "prom-client";
import type { PrismaClient } from "../generated/prisma/client.ts";
import type { ProviderCircuits } from "../agents/circuit-breaker.ts";
import { registerInstruments } from "../observability/instruments.ts";
import { registerEventLoopDelay } from "./event-loop-delay.ts";

export interface MetricsSources {
  prisma: PrismaClient;
  /** postgres only: this process's connection pools by name (Prisma's, the hot path's) */
  pools?: Record<string, Pick<pg.Pool, "totalCount" | "idleCount" | "waitingCount"> | undefined>;
  liveSockets: () => number;
  /** this process's per-provider circuit breakers */
  circuits?: Pick<ProviderCircuits, "snapshot">;
}

/** baton_provider_circuit_state's values */
export const CIRCUIT_STATE_VALUE = { closed: 0, "half-open": 1, open: 2 } as const;

export function createMetrics(sources: MetricsSources): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: "baton_process_" });
  registerInstruments(registry);
  registerEventLoopDelay(registry);
  const { prisma } = sources;

  new Gauge({
    name: "baton_steps",
    help: "Plan steps by status",
    labelNames: ["status"],
    registers: [registry],
    async collect() {
      this.reset();
      for (const row of await prisma.planStep.groupBy({ by: ["status"], _count: { _all: true } }))
        this.set({ status: row.status }, row._count._all);
    },
  });
  new Gauge({
    name: "baton_runs",
    help: "Agent runs by status",
    labelNames: ["status"],
    registers: [registry],
    async collect() {
      this.reset();
      for (const row of await prisma.run.groupBy({ by: ["status"], _count: { _all: true } }))
        this.set({ status: row.status }, row._count._all);
    },
  });
  new Gauge({
    name: "baton_plans",
    help: "Plans by status",
    labelNames: ["status"],
    registers: [registry],
    async collect() {
      this.reset();
      for (const row of await prisma.plan.groupBy({ by: ["status"], _count: { _all: true } }))
        this.set({ status: row.status }, row._count._all);
    },
  });
  new Gauge({
    name: "baton_agent_pool_limit",
    help: "Concurrent runs an agent allows",
    labelNames: ["agent"],
    registers: [registry],
    async collect() {
      this.reset();
      for (const agent of await prisma.agent.findMany({ select: { handle: true, concurrency: true } }))
        this.set({ agent: agent.handle }, agent.concurrency);
    },
  });
  new Gauge({
    name: "baton_agent_pool_live_runs",
    help: "Queued or running runs per agent, across every process",
    labelNames: ["agent"],
    registers: [registry],
    async collect() {
      this.reset();
      const agents = await prisma.agent.findMany({ select: { id: true, handle: true } });
      const live = await prisma.run.groupBy({ by: ["agentId"], where: { status: { in: ["queued", "running"] } }, _count: { _all: true } });
      const liveByAgent = new Map(live.map((row) => [row.agentId, row._count._all]));
      for (const agent of agents) {
        this.set({ agent: agent.handle }, liveByAgent.get(agent.id) ?? 0);
      }
    },
  });
  new Gauge({
    name: "baton_agent_pool_waiters",
    help: "Queued runs waiting for a slot in their agent's pool, across every process",
    labelNames: ["agent"],
    registers: [registry],
    async collect() {
      this.reset();
      const agents = await prisma.agent.findMany({ select: { id: true, handle: true } });
      const queued = await prisma.run.groupBy({ by: ["agentId"], where: { status: "queued" }, _count: { _all: true } });
      const queuedByAgent = new Map(queued.map((row) => [row.agentId, row._count._all]));
      for (const agent of agents) this.set({ agent: agent.handle }, queuedByAgent.get(agent.id) ?? 0);
    },
  });
  if (sources.circuits) {
    const circuits = sources.circuits;
    new Gauge({
      name: "baton_provider_circuit_state",
      help: "Each model provider's circuit breaker in this process: 0 closed, 1 half-open, 2 open",
      labelNames: ["provider"],
      registers: [registry],
      collect() {
        this.reset();
        for (const view of circuits.snapshot()) this.set({ provider: view.provider }, CIRCUIT_STATE_VALUE[view.state]);
      },
    });
  }
  new Gauge({
    name: "baton_live_sockets",
    help: "Socket.IO clients connected to this process",
    registers: [registry],
    collect() {
      this.set(sources.liveSockets());
    },
  });
  const pools = Object.entries(sources.pools ?? {}).flatMap(([name, pool]) => (pool ? [{ name, pool }] : []));
  if (pools.length > 0) {
    new Gauge({
      name: "baton_db_pool_connections",
      help: "PostgreSQL connections of this process by pool (prisma, hot_path) and state (waiting: callers without one)",
      labelNames: ["pool", "state"],
      registers: [registry],
      collect() {
        for (const { name, pool } of pools) {
          this.set({ pool: name, state: "total" }, pool.totalCount);
          this.set({ pool: name, state: "idle" }, pool.idleCount);
          this.set({ pool: name, state: "waiting" }, pool.waitingCount);
        }
      },
    });
  }
  return registry;
}

/** True when `header` is `Bearer <one of tokens>`. */
export function bearerMatches(header: string | undefined, tokens: (string | undefined)[]): boolean {
  const given = header?.match(/^Bearer\s+(\S+)$/i)?.[1];
  if (!given) return false;
  const digest = (value: string) => createHash("sha256").update(value).digest();
  return tokens.some((token) => token !== undefined && timingSafeEqual(digest(given), digest(token)));
}
