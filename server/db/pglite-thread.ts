// The embedded database on its own thread. PGlite runs PostgreSQL as WebAssembly, and
// every statement runs synchronously in the thread that calls it (a few ms each on the
// hot path), chained through microtasks without ever yielding: on the main thread that
// blocks sockets, HTTP and timers for as long as a burst of statements lasts. Here the
// real PGlite lives in a worker (pglite-thread-worker.mjs) and this class, in the main
// thread, is the PGlite the rest of the server talks to.
//
// Only raw protocol bytes cross the thread boundary. This class extends PGlite's own
// BasePGlite, which implements query/exec/transaction (extended protocol, type
// serializers and parsers, DatabaseError with query and params, the transaction's
// BEGIN/COMMIT/ROLLBACK) on top of a handful of abstract methods; we implement those by
// posting bytes to the worker. BasePGlite is not exported by name, but PGliteWorker (the
// browser's worker client, unusable in Node: navigator.locks, BroadcastChannel) extends it,
// so its prototype is BasePGlite. Reusing it rather than rewriting the subset
// pglite-prisma-adapter needs keeps results and errors byte-for-byte PGlite's, including
// `instanceof messages.DatabaseError`, which the adapter's error mapping (P2002…) relies on.
//
// PGlite is one connection: as in PGlite itself, a transaction mutex keeps a transaction's
// statements together and a query mutex keeps one statement's protocol messages together,
// so the worker only ever has one request in hand.

import { Worker } from "node:worker_threads";
import { Mutex, type PGlite, type Transaction } from "@electric-sql/pglite";
import { PGliteWorker } from "@electric-sql/pglite/worker";
import { type BackendMessage, collectMessages, type ExecProtocolOptions, parseMessages, ProtocolPipeline } from "./pglite-pipeline.ts";

type ExecProtocolOptionsStream = Parameters<PGlite["execProtocolRawStream"]>[1];
type DumpCompression = Parameters<PGlite["dumpDataDir"]>[0];

/** What BasePGlite gives a subclass (PGliteWorker's type names it; the class itself is unexported). */
type BasePGliteApi = Pick<
  PGliteWorker,
  | "serializers"
  | "parsers"
  | "_initArrayTypes"
  | "refreshArrayTypes"
  | "query"
  | "sql"
  | "exec"
  | "describeQuery"
  | "transaction"
  | "runExclusive"
>;
const BasePGlite = Object.getPrototypeOf(PGliteWorker) as abstract new () => BasePGliteApi;
if (typeof (BasePGlite.prototype as Partial<BasePGliteApi>).transaction !== "function") {
  // a PGlite upgrade that changes the class hierarchy must fail loudly, not at the first query
  throw new Error("@electric-sql/pglite: PGliteWorker no longer extends BasePGlite; server/db/pglite-thread.ts needs updating");
}

/** The part of PGlite the server uses on the embedded database: Prisma's adapter, backups, ops. */
export type EmbeddedPGlite = Pick<PGlite, "query" | "exec" | "transaction" | "dumpDataDir" | "close" | "closed">;

interface Pending {
  resolve(value: unknown): void;
  reject(error: Error): void;
}

type WorkerReply = { id: number; ok: true; value: unknown } | { id: number; ok: false; error: WorkerError };
type WorkerStatus = { type: "ready"; syncsToFs: boolean } | { type: "failed"; error: WorkerError };
interface WorkerError {
  name: string;
  message: string;
  stack?: string;
}

const WORKER_URL = new URL("./pglite-thread-worker.mjs", import.meta.url);

export class PGliteThread extends BasePGlite {
  readonly debug = 0 as const;
  readonly #worker: Worker;
  readonly #pending = new Map<number, Pending>();
  #nextId = 1;
  readonly #queryMutex = new Mutex();
  readonly #transactionMutex = new Mutex();
  #closing = false;
  #closed = false;
  /** why the worker is gone, once it is (crash, failed start) */
  #dead: Error | null = null;
  readonly #ready: Promise<void>;
  /** false when the worker's filesystem writes through as statements run (NodeFS, memory) */
  #syncsToFs = true;
  readonly #pipeline = new ProtocolPipeline();

  /** trips to the thread so far (tests: a query seen before is one) */
  get protocolTrips(): number {
    return this.#pipeline.trips;
  }

  /**
   * Starts the worker on `dataDir` and resolves once the database is open. `workerUrl` is
   * for tests (a worker that crashes on cue); default pglite-thread-worker.mjs.
   */
  static async create(options: { dataDir: string; workerUrl?: URL }): Promise<PGliteThread> {
    const db = new PGliteThread(options.dataDir, options.workerUrl ?? WORKER_URL);
    try {
      await db.#ready;
      // idle, the thread must not keep the process alive (an in-thread PGlite did not);
      // #request refs it while a request is out
      db.#worker.unref();
      // BasePGlite's array-type parsers, as PGlite's own init does
      await db._initArrayTypes();
      return db;
    } catch (error) {
      db.#closed = true;
      await db.#worker.terminate();
      throw error;
    }
  }

  private constructor(dataDir: string, workerUrl: URL) {
    super();
    this.#worker = new Worker(workerUrl, { workerData: { dataDir }, name: "pglite" });
    this.#ready = new Promise<void>((resolve, reject) => {
      this.#worker.once("message", (status: WorkerStatus) => {
        if (status.type === "ready") {
          this.#syncsToFs = status.syncsToFs;
          resolve();
        } else reject(this.#fail(new Error(`the embedded database could not open ${dataDir}: ${status.error.message}`)));
        this.#worker.on("message", (reply: WorkerReply) => this.#onReply(reply));
      });
      // a thread can throw anything, not only an Error
      this.#worker.on("error", (error: unknown) => {
        const reason = error instanceof Error ? error.message : String(error);
        reject(this.#fail(new Error(`the embedded database's thread crashed: ${reason}`, { cause: error })));
      });
      this.#worker.on("exit", (code) => {
        const error = new Error(`the embedded database's thread stopped (exit code ${code})`);
        if (!this.#closed) reject(this.#fail(error));
      });
    });
  }

  get closed(): boolean {
    return this.#closed;
  }

  get ready(): boolean {
    return !this.#closing && !this.#closed && this.#dead === null;
  }

  // ─── The abstract surface BasePGlite builds on ──────────────────────────────────

  async _checkReady(): Promise<void> {
    if (this.#dead) throw this.#dead;
    if (this.#closing) throw new Error("PGlite is closing");
    if (this.#closed) throw new Error("PGlite is closed");
    await this.#ready;
  }

  _runExclusiveQuery<T>(fn: () => Promise<T>): Promise<T> {
    return this.#queryMutex.runExclusive(fn);
  }

  _runExclusiveTransaction<T>(fn: () => Promise<T>): Promise<T> {
    return this.#transactionMutex.runExclusive(fn);
  }

  async execProtocolRaw(message: Uint8Array, { syncToFs = true }: ExecProtocolOptions = {}): Promise<Uint8Array> {
    const data = await this.#exec(this.#pipeline.outgoing(message));
    if (syncToFs) await this.syncToFs();
    return data;
  }

  async execProtocolRawStream(message: Uint8Array, { syncToFs = true, onRawData }: ExecProtocolOptionsStream): Promise<void> {
    onRawData(await this.execProtocolRaw(message, { syncToFs }));
  }

  async execProtocol(message: Uint8Array, options: ExecProtocolOptions = {}): Promise<{ messages: BackendMessage[]; data: Uint8Array }> {
    const data = await this.execProtocolRaw(message, { syncToFs: options.syncToFs ?? true });
    return { messages: collectMessages(parseMessages(data), options), data };
  }

  /** What BasePGlite calls for every protocol message: pipelined (see pglite-pipeline.ts). */
  async execProtocolStream(message: Uint8Array, options: ExecProtocolOptions = {}): Promise<BackendMessage[]> {
    const results = await this.#pipeline.call(message, options, (bytes) => this.#exec(bytes));
    if (options.syncToFs ?? true) await this.syncToFs();
    return results;
  }

  async syncToFs(): Promise<void> {
    // BasePGlite calls this after every statement outside a transaction; a data directory
    // on disk needs nothing (see the worker), so this saves a trip per statement
    if (this.#syncsToFs) await this.#request({ op: "sync" });
  }

  // COPY … '/dev/blob' would need the blob on the worker's side; nothing in Baton uses it
  async _handleBlob(blob?: File | Blob): Promise<void> {
    if (blob) throw new Error("the threaded embedded database does not support query blobs (COPY … '/dev/blob')");
  }

  async _getWrittenBlob(): Promise<undefined> {
    return undefined;
  }

  async _cleanupBlob(): Promise<void> {}

  // Nothing LISTENs on the embedded database: it is one process, whose executor is woken
  // directly (db/notifications.ts is for PostgreSQL only).
  async listen(_channel: string, _callback: (payload: string) => void, _tx?: Transaction): Promise<(tx?: Transaction) => Promise<void>> {
    throw new Error("LISTEN is not supported on the threaded embedded database");
  }

  // ─── What the server uses beyond queries ────────────────────────────────────────

  /** A tarball of the data directory (see PGlite.dumpDataDir), taken between statements. */
  async dumpDataDir(compression?: DumpCompression): Promise<Blob> {
    await this._checkReady();
    const buffer = await this._runExclusiveQuery(() => this.#request({ op: "dump", compression }));
    return new Blob([buffer as ArrayBuffer]);
  }

  /** Waits for running statements and transactions, closes PGlite, ends the thread. */
  async close(): Promise<void> {
    if (this.#closed || this.#closing) return;
    if (this.#dead) {
      this.#closed = true;
      return;
    }
    await this._checkReady().catch(() => {});
    await this.#transactionMutex.runExclusive(() =>
      this.#queryMutex.runExclusive(async () => {
        this.#closing = true;
        try {
          if (!this.#dead) await this.#request({ op: "close" });
        } finally {
          this.#closed = true;
          this.#closing = false;
          await this.#worker.terminate();
        }
      }),
    );
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  // ─── The thread ─────────────────────────────────────────────────────────────────

  async #exec(message: Uint8Array): Promise<Uint8Array> {
    return (await this.#request({ op: "exec", message })) as Uint8Array;
  }

  #request(
    request: { op: "exec"; message: Uint8Array } | { op: "sync" } | { op: "dump"; compression: DumpCompression } | { op: "close" },
  ): Promise<unknown> {
    if (this.#dead) return Promise.reject(this.#dead);
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      // while a request is out the thread keeps the process alive, or an awaited query
      // in a script with nothing else to do would end the process half-way
      if (this.#pending.size === 0) this.#worker.ref();
      this.#pending.set(id, { resolve, reject });
      // the message is copied, not transferred: pg-protocol's serializer may hand out a
      // view of a shared buffer, and these are small
      this.#worker.postMessage({ id, ...request });
    });
  }

  #onReply(reply: WorkerReply): void {
    const pending = this.#pending.get(reply.id);
    if (!pending) return;
    this.#pending.delete(reply.id);
    if (this.#pending.size === 0) this.#worker.unref();
    if (reply.ok) pending.resolve(reply.value);
    else pending.reject(Object.assign(new Error(reply.error.message), { name: reply.error.name, stack: reply.error.stack }));
  }

  /** The thread is gone: every request still waiting, and every later one, gets `error`. */
  #fail(error: Error): Error {
    this.#dead ??= error;
    for (const pending of this.#pending.values()) pending.reject(this.#dead);
    this.#pending.clear();
    return this.#dead;
  }
}
