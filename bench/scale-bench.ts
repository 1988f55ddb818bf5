/**
 * The scale row: two web nodes and two workers on PostgreSQL, 1,000 Socket.IO clients
 * across 50 conversations, 100 plans running at once. `npm run bench:scale` runs only
 * this; `npm run bench` runs it after the server table when BATON_BENCH_SCALE=1 (it takes
 * minutes: four servers, 1,000 clients). Needs DATABASE_URL=postgresql://…
 * (a scratch database on that server, dropped afterwards). Figures, not assertions:
 *
 * - events lost: each client's deliveries against every seq its conversation committed
 *   after it joined (goal 0);
 * - peak memory per process: each server process's peak resident set (VmHWM) (goal ≤ 1 GB);
 * - fan-out: a delivery's arrival minus the event's createdAt (the committing unit's
 *   stamp), p50 and p99 (goal p99 ≤ 300 ms), split into hops (latencyHops): committed →
 *   the unit's commit notice on the processes' bus (a NOTIFY on EVENTS_CHANNEL naming its
 *   seqs, seen by a listener of the benchmark's own), bus → the event's first client (a web
 *   node read the events and wrote its sockets), first client → first client on the
 *   same web node (the other node's lag), that one → each client on that node;
 * - the clients' own event-loop delay: they run in child processes (bench/scale/clients.ts)
 *   so that the benchmark's loop is not the one that is late, and report how late theirs was;
 * - the burst: submission → every plan ended, the machine's busy share over it and the
 *   CPU seconds of the servers, PostgreSQL and the clients (scale/cpu-time.ts): a tail
 *   that is queueing for CPU shows as cores busy all through it.
 *
 * BATON_BENCH_SCALE_CLIENTS and BATON_BENCH_SCALE_PLANS change the load (1,000 and 100).
 */
import { fork, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { startServer, type BatonServer } from "./server/launch.ts";
import { openPostgresBenchDatabase, withDatabase } from "./bench-database.ts";
import { quantile } from "./server/workloads.ts";
import { cpuWindow, type CpuWindow } from "./scale/cpu-time.ts";
import { toPlan, type TimedStep } from "./dags.ts";
import { apiClient, type ApiClient } from "./server/client.ts";
import { createApiToken } from "../server/services/api-tokens.ts";
import { EVENTS_CHANNEL } from "../server/adapters/socket/event-bus.ts";
import type { ClusterMessage } from "../server/adapters/socket/socket-publisher.ts";
import type { ClientAssignment, Delivery, FromClients, ToClients } from "./scale/clients.ts";

const CLIENTS = Number(process.env.BATON_BENCH_SCALE_CLIENTS ?? 1_000);
const CONVERSATIONS = 50;
const PLANS = Number(process.env.BATON_BENCH_SCALE_PLANS ?? 100);
const CLIENT_PROCESSES = 4;
const log = (line: string) => console.error(`[bench:scale] ${line}`);
const ms = (value: number) => `${value.toFixed(0)} ms`;
const spread = (values: number[]) =>
  values.length ? `${ms(quantile(values, 0.5))} / ${ms(quantile(values, 0.99))} (p50 / p99)` : "not seen";

/** A plan of six steps, two branches of 30–120 ms steps joining: enough events per plan to fan out. */
function scalePlan(seed: number): TimedStep[] {
  const sleep = (i: number) => 30 + ((seed * 37 + i * 53) % 91);
  return [
    { index: 1, waitFor: [], sleepMs: sleep(1) },
    { index: 2, waitFor: [1], sleepMs: sleep(2) },
    { index: 3, waitFor: [1], sleepMs: sleep(3) },
    { index: 4, waitFor: [2], sleepMs: sleep(4) },
    { index: 5, waitFor: [3], sleepMs: sleep(5) },
    { index: 6, waitFor: [4, 5], sleepMs: sleep(6) },
  ];
}

/** Peak resident memory of a process so far, from /proc (Linux), in MB; null elsewhere. */
function peakMemoryMb(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  try {
    const line = fs
      .readFileSync(`/proc/${pid}/status`, "utf8")
      .split("\n")
      .find((l) => l.startsWith("VmHWM:"));
    return line ? Number(line.replace(/\D+/g, "")) / 1024 : null;
  } catch {
    return null;
  }
}

/** The events a message on the processes' bus announces: a unit's commit notice names its seqs (event-bus.ts). */
function committedIn(payload: string | undefined): { conversationId: string; seq: number }[] {
  let message: ClusterMessage;
  try {
    message = JSON.parse(payload ?? "null") as ClusterMessage;
  } catch {
    return [];
  }
  if (message?.kind !== "seqs") return []; // a run's streamed text or status: not a conversation event
  const { conversationId, first, last } = message.seqs;
  return Array.from({ length: last - first + 1 }, (_, i) => ({ conversationId, seq: first + i }));
}

/**
 * A delivery's latency (committed → received) and its hops: committed → the commit
 * notice seen on the bus; bus → the first client that received the event (a web node
 * read it and wrote its sockets); that first client → the first client on this client's
 * web node (how much later the other node got there); that one → this client (the node
 * writing its other sockets, one loop turn for a room, and the clients' own delay).
 * Events a web node committed itself reach its own sockets without the bus, so a notice
 * seen after the first client counts in no hop before it.
 */
function latencyHops(deliveries: Delivery[], notifiedAt: Map<string, number>) {
  const earliest = (map: Map<string, number>, key: string, at: number) => map.set(key, Math.min(map.get(key) ?? Infinity, at));
  const firstReceived = new Map<string, number>();
  const firstOnNode = new Map<string, number>();
  for (const [conversationId, seq, , receivedAt, , node] of deliveries) {
    earliest(firstReceived, `${conversationId}:${seq}`, receivedAt);
    earliest(firstOnNode, `${conversationId}:${seq}:${node}`, receivedAt);
  }
  const total: number[] = [];
  const toBus: number[] = [];
  const busToFirst: number[] = [];
  const firstToNode: number[] = [];
  const nodeToEach: number[] = [];
  for (const [conversationId, seq, createdAt, receivedAt, , node] of deliveries) {
    const key = `${conversationId}:${seq}`;
    const first = firstReceived.get(key)!;
    const onNode = firstOnNode.get(`${key}:${node}`)!;
    const notified = notifiedAt.get(key);
    total.push(receivedAt - createdAt);
    firstToNode.push(onNode - first);
    nodeToEach.push(receivedAt - onNode);
    if (notified !== undefined && notified <= first) {
      toBus.push(notified - createdAt);
      busToFirst.push(first - notified);
    }
  }
  return { total, toBus, busToFirst, firstToNode, nodeToEach };
}

function startClientProcess(): { child: ChildProcess; next: () => Promise<FromClients> } {
  const child = fork(path.join(import.meta.dirname, "scale", "clients.ts"), [], {
    execArgv: ["--import", "tsx"],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const inbox: FromClients[] = [];
  let waiting: ((message: FromClients) => void) | undefined;
  child.on("message", (message: FromClients) => {
    if (waiting) {
      const resolve = waiting;
      waiting = undefined;
      resolve(message);
    } else inbox.push(message);
  });
  return {
    child,
    next: () => (inbox.length > 0 ? Promise.resolve(inbox.shift()!) : new Promise((resolve) => (waiting = resolve))),
  };
}

/** The burst as a whole: how long the plans took, and whether the machine's cores were busy all through it. */
function burstLine(cpu: CpuWindow, serverCount: number): string {
  const seconds = (values: (number | null)[]) => values.reduce<number>((sum, value) => sum + (value ?? 0), 0).toFixed(1);
  const busy = cpu.machineBusy === null ? "?" : `${(cpu.machineBusy * 100).toFixed(0)} %`;
  return (
    `| the burst: submitted → every plan ended; CPU over it | ${cpu.seconds.toFixed(1)} s; ${busy} of ${cpu.cores} cores busy: ` +
    `servers ${seconds(cpu.servers.slice(0, serverCount))} s (${cpu.servers
      .slice(0, serverCount)
      .map((value) => (value === null ? "?" : value.toFixed(1)))
      .join(" + ")}), PostgreSQL ${cpu.postgres.toFixed(1)} s, ` +
    `clients ${seconds(cpu.servers.slice(serverCount))} s of CPU | |`
  );
}

export async function benchScale(): Promise<string> {
  const adminUrl = process.env.DATABASE_URL?.trim();
  if (!adminUrl || !/^postgres(ql)?:\/\//.test(adminUrl)) {
    return "scale: not run (two web nodes and two workers need PostgreSQL: set DATABASE_URL=postgresql://…)";
  }
  const scratch = await openPostgresBenchDatabase(adminUrl);
  const url = withDatabase(adminUrl, scratch.name);
  const servers: BatonServer[] = [];
  const clientProcesses: ReturnType<typeof startClientProcess>[] = [];
  const listener = new pg.Client({ connectionString: url });
  try {
    const base = { databaseUrl: url, entry: "bench/scale/node.ts" };
    // the first migrates and seeds; the others share its token and auth secret
    const first = await startServer({ ...base, label: "web 1", env: { BATON_ROLE: "web" } });
    servers.push(first);
    const shared = { ...base, token: first.token, authSecret: first.authSecret };
    servers.push(
      ...(await Promise.all([
        startServer({ ...shared, label: "web 2", env: { BATON_ROLE: "web" } }),
        startServer({ ...shared, label: "worker 1", env: { BATON_ROLE: "worker" } }),
        startServer({ ...shared, label: "worker 2", env: { BATON_ROLE: "worker" } }),
      ])),
    );
    const web = servers.slice(0, 2);
    await scratch.prisma.agent.updateMany({ data: { concurrency: 1_000 } });

    // people: one per conversation, each with its twenty tabs (sessions made as better-auth
    // makes them) and its own API token, which creates its conversation and submits its plans.
    // One token for everything would meet its write limit (TOKEN_WRITE_RATE, per token and
    // process) as any automation writing this much would: it is the limit working, so the
    // benchmark sets up as many people with their own tokens would instead of loosening it.
    process.env.BETTER_AUTH_SECRET = first.authSecret;
    const { quickAccount } = await import("../server/auth/testing/quick-sessions.ts");
    const conversations: { id: string; api: ApiClient }[] = [];
    const assignments: ClientAssignment[] = [];
    for (let c = 0; c < CONVERSATIONS; c++) {
      const person = await quickAccount(scratch.prisma, `Scale${c}`);
      const { token } = await createApiToken(scratch.prisma, {
        actor: { id: person.id, role: "member", kind: "user" },
        name: "scale benchmark",
        scopes: ["read", "write"],
        expiresInDays: 1,
      });
      const created = await fetch(`${web[c % 2].baseURL}/api/v1/conversations`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({ title: `scale ${c}`, agents: ["researcher", "analyst", "writer"] }),
      });
      if (!created.ok) throw new Error(`creating a conversation: ${created.status} ${await created.text()}`);
      const { id } = (await created.json()) as { id: string };
      conversations.push({ id, api: apiClient(web[c % 2], token) });
      for (let k = 0; k < CLIENTS / CONVERSATIONS; k++) {
        const i = assignments.length;
        assignments.push({
          node: i % 2,
          baseURL: web[i % 2].baseURL,
          cookie: person.cookie,
          conversationId: id,
          address: `10.80.${i >> 8}.${i & 255}`,
        });
      }
    }

    log(`connecting ${CLIENTS} clients from ${CLIENT_PROCESSES} processes…`);
    for (let p = 0; p < CLIENT_PROCESSES; p++) clientProcesses.push(startClientProcess());
    const joins = new Map<ClientAssignment, number>();
    const connected = await Promise.all(
      clientProcesses.map(async (process_, p) => {
        const share = assignments.filter((_, i) => i % CLIENT_PROCESSES === p);
        process_.child.send({ kind: "connect", clients: share } satisfies ToClients);
        const answer = await process_.next();
        if (answer.kind !== "connected") throw new Error(`clients: ${answer.kind === "failed" ? answer.error : answer.kind}`);
        answer.joined.forEach((joined, i) => joins.set(share[i], joined.lastSeq));
        return answer.joined;
      }),
    );
    const joinedAt = new Map<string, number>(); // the highest seq any client saw at its join, per conversation
    for (const joined of connected.flat())
      joinedAt.set(joined.conversationId, Math.max(joinedAt.get(joined.conversationId) ?? 0, joined.lastSeq));

    // the side channel: when the adapter's NOTIFY for an event reached a listener on this machine
    const notifiedAt = new Map<string, number>();
    await listener.connect();
    listener.on("notification", (message) => {
      const now = Date.now();
      for (const event of committedIn(message.payload)) {
        const key = `${event.conversationId}:${event.seq}`;
        if (!notifiedAt.has(key)) notifiedAt.set(key, now);
      }
    });
    await listener.query(`LISTEN ${EVENTS_CHANNEL}`);

    log(`${PLANS} plans at once…`);
    const burst = cpuWindow(
      [...servers.map((server) => server.child.pid), ...clientProcesses.map((process_) => process_.child.pid)],
      os.availableParallelism(),
    );
    const submitted = await Promise.all(
      Array.from({ length: PLANS }, (_, p) =>
        conversations[p % CONVERSATIONS].api
          .submitPlan(conversations[p % CONVERSATIONS].id, toPlan(`scale plan ${p}`, scalePlan(p), 6))
          .then((plan) => plan.id),
      ),
    );
    // the plans' ends, read from the database (the clients are what is measured)
    const deadline = Date.now() + 600_000;
    for (;;) {
      const open = await scratch.prisma.plan.count({ where: { id: { in: submitted }, endedAt: null } });
      if (open === 0) break;
      if (Date.now() > deadline) throw new Error(`${open} plans did not end within 10 minutes`);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    const cpu = burst.end();
    const statuses = await scratch.prisma.plan.groupBy({ by: ["status"], where: { id: { in: submitted } }, _count: true });
    // the last events may still be on their way
    await new Promise((resolve) => setTimeout(resolve, 2_000));

    const reports = await Promise.all(
      clientProcesses.map(async (process_) => {
        process_.child.send({ kind: "report" } satisfies ToClients);
        const answer = await process_.next();
        if (answer.kind !== "report") throw new Error(`clients answered ${answer.kind}`);
        return answer;
      }),
    );
    const peaks = servers.map((server) => peakMemoryMb(server.child.pid));
    const lastSeqs = new Map(
      (
        await scratch.prisma.conversation.findMany({
          where: { id: { in: conversations.map((conversation) => conversation.id) } },
          select: { id: true, lastSeq: true },
        })
      ).map((row) => [row.id, row.lastSeq] as const),
    );

    // lost: each client should have every seq after the one it joined at, up to its conversation's last
    const deliveries = reports.flatMap((report) => report.deliveries);
    const perClientExpected = [...joins.entries()].reduce(
      (sum, [assignment, lastSeq]) => sum + ((lastSeqs.get(assignment.conversationId) ?? 0) - lastSeq),
      0,
    );
    const distinct = new Set<string>();
    const receivedByClient = new Set<string>();
    reports.forEach((report, p) => {
      for (const [conversationId, seq, , , client] of report.deliveries) {
        distinct.add(`${conversationId}:${seq}`);
        if (seq > (joinedAt.get(conversationId) ?? 0)) receivedByClient.add(`${p}:${client}:${seq}`);
      }
    });
    const duplicates = deliveries.length - receivedByClient.size;
    const lost = perClientExpected - receivedByClient.size;
    const hops = latencyHops(deliveries, notifiedAt);
    const fanOut = hops.total;
    const loops = reports.map((report) => report.loopDelayMs);
    const p99 = quantile(fanOut, 0.99);
    const worstPeak = Math.max(...peaks.map((peak) => peak ?? 0));
    const verdict = (met: boolean) => (met ? "met" : "**not met**");
    const lines = [
      `\nAt scale (\`npm run bench:scale\`): 2 web nodes + 2 workers on PostgreSQL, ${CLIENTS} Socket.IO clients in ${CLIENT_PROCESSES} processes across ${CONVERSATIONS} conversations, ${PLANS} six-step plans at once (${statuses.map((s) => `${s._count} ${s.status}`).join(", ")})\n`,
      "| measured | figure | goal |",
      "| --- | --- | --- |",
      `| events lost (of ${perClientExpected.toLocaleString("en")} deliveries due, ${distinct.size.toLocaleString("en")} distinct events) | ${lost} — ${verdict(lost === 0)} (${duplicates} delivered twice) | 0 |`,
      `| peak memory per process (web 1, web 2, worker 1, worker 2) | ${peaks.map((peak) => (peak === null ? "?" : `${peak.toFixed(0)} MB`)).join(", ")} — ${verdict(worstPeak <= 1024)} | ≤ 1 GB |`,
      `| fan-out: event committed → client received, p50 / p99 | ${ms(quantile(fanOut, 0.5))} / ${ms(p99)} — ${verdict(p99 <= 300)} | p99 ≤ 300 ms |`,
      `| of which committed → commit notice on the bus (NOTIFY seen by a listener of the benchmark's) | ${spread(hops.toBus)} | |`,
      `| of which bus → first client of the event (a web node reads the events, writes its sockets) | ${spread(hops.busToFirst)} | |`,
      `| of which first client → first client on this client's web node (the other node's lag) | ${spread(hops.firstToNode)} | |`,
      `| of which first client on the node → this client (the node writing its other sockets; the clients' own delay) | ${spread(hops.nodeToEach)} | |`,
      `| the clients' own event-loop delay, p99 per process (max) | ${loops.map((l) => ms(l.p99)).join(", ")} (max ${ms(Math.max(...loops.map((l) => l.max)))}) | small |`,
      burstLine(cpu, servers.length),
    ];
    return lines.join("\n");
  } finally {
    for (const process_ of clientProcesses) process_.child.kill();
    await listener.end().catch(() => {});
    await Promise.all(servers.map((server) => server.stop()));
    await scratch.close().catch((error) => log(`could not drop the scratch database: ${error}`));
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(await benchScale());
  process.exit(0);
}
