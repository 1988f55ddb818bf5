/**
 * A process's liveness on PostgreSQL that dies with it: each process holds a
 * session-level advisory lock on its own key (LIVENESS_LOCK_CLASS, hashtext of its
 * instance id) on a dedicated connection. When the process dies, PostgreSQL ends the
 * session and frees the lock at once, so other processes can tell a dead owner's runs
 * in seconds instead of waiting out its lease. A frozen (SIGSTOPped) process keeps its
 * connection, so its lock, and its lease still protects its runs.
 *
 * The connection is pinged every PING_MS; when it drops or stops answering, `held`
 * turns false (listeners hear it at once) and the lock is taken again with backoff.
 * While not held, other processes may take this process's runs over: the executor
 * stops them here (executor/leases.ts).
 */
import pg from "pg";
import { log } from "../observability/log.ts";
import { reconnector } from "./pg-listener.ts";

/** the advisory lock spaces (pg_advisory_lock(int4, int4)'s first key) of Baton's liveness locks: processes that run agents, and web nodes */
export const LIVENESS_LOCK_CLASS = 0xba7;
export const WEB_LIVENESS_LOCK_CLASS = 0xba8;
/** the advisory lock space of takeovers: the process holding (TAKEOVER_LOCK_CLASS, hashtext(owner)) takes that dead owner's runs over */
const TAKEOVER_LOCK_CLASS = 0xba9;
const PING_MS = 1_000;
/** a ping without an answer this long counts as a lost connection */
const PING_TIMEOUT_MS = 2_000;

export interface Liveness {
  /** whether this process holds its lock now */
  readonly held: boolean;
  /** resolves once the lock is held the first time */
  start(): Promise<void>;
  /** called with `false` when the lock may be lost, `true` when it is held again */
  onChange(listener: (held: boolean) => void): void;
  /**
   * Of `owners` (instance ids), those no process holds the lock of. Asked on this process's
   * own lock connection while it is held, so the answer never waits for a busy pool.
   */
  deadOwners(owners: string[]): Promise<string[]>;
  /**
   * Runs `work` unless another process is already taking `owner`'s runs over (then returns
   * false): one process takes a dead owner's runs over, the others do not queue the same
   * units behind it. The claim is a lock on this process's lock connection, so it dies
   * with this process too, and the others take over what it did not finish.
   */
  takingOver(owner: string, work: () => Promise<void>): Promise<boolean>;
  /** how many live processes run agents (hold a LIVENESS_LOCK_CLASS lock) */
  liveWorkers(): Promise<number>;
  close(): Promise<void>;
}

type Query = (text: string, values: unknown[]) => Promise<{ rows: unknown[] }>;

/** A connection's queries, one at a time in the order asked. */
type TurnTaking = <R extends pg.QueryResultRow>(text: string, values?: unknown[]) => Promise<pg.QueryResult<R>>;

/**
 * The lock connection serves the ping, dead-owner reads and takeover claims, which
 * the executor asks for at the same time; pg 8 queues a query sent while another
 * runs but deprecates it (pg 9 refuses), so they take turns here.
 */
export function takingTurns(connection: Pick<pg.Client, "query">): TurnTaking {
  let last: Promise<unknown> = Promise.resolve();
  return <R extends pg.QueryResultRow>(text: string, values?: unknown[]) => {
    const result = last.then(() => connection.query<R>(text, values));
    last = result.catch(() => undefined);
    return result;
  };
}

/** Owners whose liveness lock nobody holds in this database, by one read of pg_locks. */
export async function deadOwnersOf(query: Query, owners: string[]): Promise<string[]> {
  if (owners.length === 0) return [];
  const { rows } = await query(
    `SELECT owner FROM unnest($1::text[]) AS owner
     WHERE NOT EXISTS (
       SELECT 1 FROM pg_locks l
       WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 2
         AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
         AND l.classid IN ($2::integer::oid, $3::integer::oid) AND l.objid = hashtext(owner)::oid)`,
    [owners, LIVENESS_LOCK_CLASS, WEB_LIVENESS_LOCK_CLASS],
  );
  return (rows as { owner: string }[]).map((row) => row.owner);
}

/** How many processes that run agents hold their liveness lock in this database. */
export async function liveWorkersOf(query: Query): Promise<number> {
  const { rows } = await query(
    `SELECT count(*)::integer AS n FROM pg_locks l
     WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 2 AND l.classid = $1::integer::oid
       AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
    [LIVENESS_LOCK_CLASS],
  );
  return (rows as { n: number }[])[0]?.n ?? 0;
}

/**
 * Whether `SELECT 1` on `connection` answers within `timeoutMs` of this process's own
 * time: a process that was frozen (SIGSTOP, a long GC pause) finds its timer due the
 * moment it resumes, before it has read the answer waiting on the socket, so a timer
 * that fired late starts the wait again, and one that fired on time still lets pending
 * input be read (setImmediate runs after the poll phase) before it gives up.
 */
export function answersWithin(connection: { query: (text: string) => Promise<unknown> }, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    let settled = false;
    const settle = (answered: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(answered);
    };
    connection.query("SELECT 1").then(
      () => settle(true),
      () => settle(false),
    );
    let due = Date.now() + timeoutMs;
    const check = () => {
      if (Date.now() - due > timeoutMs / 2) {
        // this process was not running: the database had no fair chance to answer
        due = Date.now() + timeoutMs;
        timer = setTimeout(check, timeoutMs);
        return;
      }
      setImmediate(() => settle(false));
    };
    let timer = setTimeout(check, timeoutMs);
  });
}

export function postgresLiveness(input: { config: pg.ClientConfig; instanceId: string; pool: pg.Pool; runsAgents: boolean }): Liveness {
  const lockClass = input.runsAgents ? LIVENESS_LOCK_CLASS : WEB_LIVENESS_LOCK_CLASS;
  const listeners: ((held: boolean) => void)[] = [];
  let client: pg.Client | null = null;
  /** `client`'s queries, taking turns */
  let query: TurnTaking | null = null;
  let held = false;
  let closed = false;
  let pingTimer: NodeJS.Timeout | null = null;
  let firstHeld!: () => void;
  const started = new Promise<void>((resolve) => (firstHeld = resolve));
  const setHeld = (value: boolean) => {
    if (held === value) return;
    held = value;
    for (const listener of listeners) listener(value);
  };
  const reconnect = reconnector(() => void acquire());
  /** the lock connection while held (its queries queue behind nothing but the ping), else the pool */
  const lockConnectionOrPool = (): Query => {
    const turn = query;
    return turn ? (text, values) => turn(text, values) : (text, values) => input.pool.query(text, values);
  };
  const retry = () => reconnect.schedule();
  const lose = (connection: pg.Client, error?: unknown) => {
    if (client !== connection) return;
    client = null;
    query = null;
    if (pingTimer) clearInterval(pingTimer);
    pingTimer = null;
    if (error) log.warn({ err: error }, "liveness connection lost; stopping this process's runs and taking the lock again");
    setHeld(false);
    void connection.end().catch(() => undefined);
    retry();
  };
  const acquire = async () => {
    if (closed) return;
    const connection = new pg.Client(input.config);
    connection.on("error", (error) => lose(connection, error));
    connection.on("end", () => lose(connection));
    try {
      await connection.connect();
      const { rows } = await connection.query<{ locked: boolean }>("SELECT pg_try_advisory_lock($1, hashtext($2)) AS locked", [
        lockClass,
        input.instanceId,
      ]);
      // not yet: the server has not noticed this process's previous session is gone
      if (!rows[0]?.locked) throw new Error("this process's liveness lock is still held by an earlier session");
    } catch (error) {
      log.warn({ err: error }, "could not take the liveness lock; retrying");
      connection.removeAllListeners("end");
      void connection.end().catch(() => undefined);
      retry();
      return;
    }
    if (closed) {
      await connection.end().catch(() => undefined);
      return;
    }
    client = connection;
    const turn = takingTurns(connection);
    query = turn;
    reconnect.succeeded();
    let pinging = false;
    pingTimer = setInterval(() => {
      if (pinging) return;
      pinging = true;
      void answersWithin({ query: (text) => turn(text) }, PING_TIMEOUT_MS).then((answered) => {
        pinging = false;
        if (!answered) lose(connection, new Error(`the liveness connection did not answer within ${PING_TIMEOUT_MS} ms`));
      });
    }, PING_MS);
    pingTimer.unref?.();
    setHeld(true);
    firstHeld();
  };
  return {
    get held() {
      return held;
    },
    start() {
      void acquire();
      return started;
    },
    onChange(listener) {
      listeners.push(listener);
    },
    deadOwners: (owners) => deadOwnersOf(lockConnectionOrPool(), owners),
    async takingOver(owner, work) {
      const connection = client;
      const turn = query;
      // without the lock connection this process takes nothing over (leases.ts asks only while held)
      if (!connection || !turn) return false;
      const { rows } = await turn<{ claimed: boolean }>("SELECT pg_try_advisory_lock($1, hashtext($2)) AS claimed", [
        TAKEOVER_LOCK_CLASS,
        owner,
      ]);
      if (!rows[0]?.claimed) return false;
      try {
        await work();
      } finally {
        // a lost connection freed it already
        if (client === connection) {
          await turn("SELECT pg_advisory_unlock($1, hashtext($2))", [TAKEOVER_LOCK_CLASS, owner]).catch(() => undefined);
        }
      }
      return true;
    },
    liveWorkers: () => liveWorkersOf((text, values) => input.pool.query(text, values)),
    async close() {
      closed = true;
      reconnect.stop();
      if (pingTimer) clearInterval(pingTimer);
      const connection = client;
      client = null;
      query = null;
      held = false;
      // ending the session frees the lock
      await connection?.end().catch(() => undefined);
    },
  };
}
