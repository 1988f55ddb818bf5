// The embedded database on a thread of its own. PGlite runs PostgreSQL as WebAssembly,
// and each statement runs synchronously on the thread that calls it: on the server's
// thread a burst of statements holds up sockets, HTTP and timers for as long as it lasts.
// Here the one PGlite lives in a worker (pglite-thread-worker.mjs), and the server talks
// to it through a small request/reply protocol over worker_threads messages, built on
// public APIs at both ends: PGlite's query/exec/dumpDataDir/close, and Prisma's driver
// adapter interface (the worker runs pglite-prisma-adapter's adapter on its PGlite; this
// side forwards Prisma's calls to it: pglite-thread-adapter.ts).
//
// PGlite is one connection, and stays one: the worker's PGlite orders requests with its
// own mutexes, so a statement sent outside an open transaction waits for that
// transaction's end (inside `prisma.$transaction`, use `tx` only), as on one thread.

import { Worker } from "node:worker_threads";
import { messages } from "@electric-sql/pglite";
import { DriverAdapterError, type Error as AdapterErrorPayload } from "@prisma/driver-adapter-utils";

/** What a reply carries when a request failed: enough to rebuild the error this side. */
type ThreadError =
  | { kind: "adapter"; cause: AdapterErrorPayload }
  | { kind: "database"; message: string; fields: Record<string, unknown> }
  | { kind: "other"; name: string; message: string; stack?: string };

type Reply = { id: number; ok: true; value: unknown } | { id: number; ok: false; error: ThreadError };
type Status = { type: "ready" } | { type: "failed"; error: ThreadError };

/** A statement's result as PGlite gives it (rows as objects, with PGlite's own type parsing). */
export interface ThreadResults<T> {
  rows: T[];
  fields: { name: string; dataTypeID: number }[];
  affectedRows?: number;
}

/** The database thread ended or could not start; every request from then on fails with it. */
export class DatabaseThreadError extends Error {
  readonly code = "database_thread_gone";
}

const WORKER_URL = new URL("./pglite-thread-worker.mjs", import.meta.url);

export class PGliteThread {
  readonly #worker: Worker;
  readonly #pending = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
  #nextId = 1;
  #closed = false;
  #closing: Promise<void> | null = null;
  /** why the thread is gone, once it is */
  #gone: Error | null = null;

  /**
   * Starts the thread and resolves once PGlite is open there: on `dataDir` (created if
   * missing), or in memory from `loadDataDir` (a `dumpDataDir` tarball; tests). `workerUrl`
   * is for tests (a thread that fails on cue).
   */
  static async open(options: { dataDir?: string; loadDataDir?: Blob; workerUrl?: URL }): Promise<PGliteThread> {
    const loadDataDir = options.loadDataDir ? await options.loadDataDir.arrayBuffer() : undefined;
    const worker = new Worker(options.workerUrl ?? WORKER_URL, {
      workerData: { dataDir: options.dataDir, loadDataDir },
      transferList: loadDataDir ? [loadDataDir] : [],
      name: "pglite",
    });
    const thread = new PGliteThread(worker);
    try {
      await thread.#started(options.dataDir ?? "a database in memory");
    } catch (error) {
      thread.#closed = true;
      await worker.terminate();
      throw error;
    }
    // idle, the thread must not keep the process alive; #request refs it while a request is out
    worker.unref();
    return thread;
  }

  private constructor(worker: Worker) {
    this.#worker = worker;
    // a thread can throw anything, not only an Error
    worker.on("error", (error: unknown) => {
      const reason = error instanceof Error ? error.message : String(error);
      this.#fail(new DatabaseThreadError(`the embedded database's thread crashed: ${reason}`, { cause: error }));
    });
    worker.on("exit", (code) => {
      this.#fail(
        new DatabaseThreadError(
          this.#closed ? "the embedded database is closed" : `the embedded database's thread stopped (exit code ${code})`,
        ),
      );
    });
  }

  #started(dataDir: string): Promise<void> {
    return new Promise((resolve, reject) => {
      const onExit = () => reject(this.#gone ?? new DatabaseThreadError("the embedded database's thread stopped while starting"));
      this.#worker.once("exit", onExit);
      this.#worker.once("message", (status: Status) => {
        this.#worker.off("exit", onExit);
        if (status.type === "failed") {
          reject(new DatabaseThreadError(`the embedded database could not open ${dataDir}: ${rebuildError(status.error).message}`));
          return;
        }
        this.#worker.on("message", (reply: Reply) => this.#settle(reply));
        resolve();
      });
    });
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** One statement with $1… parameters, parsed by PGlite in the thread (as `PGlite.query`). */
  query<T>(sql: string, params: unknown[] = []): Promise<ThreadResults<T>> {
    return this.request("query", { sql, params }) as Promise<ThreadResults<T>>;
  }

  /** Several statements, no parameters (as `PGlite.exec`). */
  exec(sql: string): Promise<ThreadResults<unknown>[]> {
    return this.request("exec", { sql }) as Promise<ThreadResults<unknown>[]>;
  }

  /** A tarball of the data directory (as `PGlite.dumpDataDir`), taken between statements. */
  async dumpDataDir(compression?: "auto" | "gzip" | "none"): Promise<Blob> {
    const bytes = (await this.request("dump", { compression })) as ArrayBuffer;
    return new Blob([bytes]);
  }

  /** Waits for what is running, closes PGlite, ends the thread. Idempotent. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      try {
        if (!this.#gone && !this.#closed) await this.request("close", {});
      } finally {
        this.#closed = true;
        await this.#worker.terminate();
      }
    })();
    return this.#closing;
  }

  /** Sends one request to the thread; the reply's error, if any, is rebuilt as the error it was. */
  request(op: string, payload: Record<string, unknown>): Promise<unknown> {
    if (this.#gone) return Promise.reject(this.#gone);
    if (this.#closed || (this.#closing && op !== "close"))
      return Promise.reject(new DatabaseThreadError("the embedded database is closed"));
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      try {
        // parameters are copied (structured clone); one that cannot be (a function) throws here
        this.#worker.postMessage({ id, op, ...payload });
      } catch (error) {
        reject(error instanceof Error ? error : new Error(String(error)));
        return;
      }
      // while a request is out the thread keeps the process alive, or a script awaiting a
      // query with nothing else to do would end half-way
      if (this.#pending.size === 0) this.#worker.ref();
      this.#pending.set(id, { resolve, reject });
    });
  }

  #settle(reply: Reply): void {
    const pending = this.#pending.get(reply.id);
    if (!pending) return;
    this.#pending.delete(reply.id);
    if (this.#pending.size === 0) this.#worker.unref();
    if (reply.ok) pending.resolve(reply.value);
    else pending.reject(rebuildError(reply.error));
  }

  #fail(error: Error): void {
    this.#gone ??= error;
    for (const pending of this.#pending.values()) pending.reject(this.#gone);
    this.#pending.clear();
  }
}

/**
 * The error the thread's call threw, as the same class this side: Prisma's DriverAdapterError
 * (its client maps it to P2002…), PGlite's DatabaseError with every field PostgreSQL sent
 * (database-errors.ts reads its SQLSTATE), or a plain Error naming what went wrong.
 */
function rebuildError(error: ThreadError): Error {
  switch (error.kind) {
    case "adapter":
      return new DriverAdapterError(error.cause);
    case "database": {
      const { length: _length, name: _name, ...fields } = error.fields;
      return Object.assign(new messages.DatabaseError(error.message, 0, "error"), fields);
    }
    case "other":
      return Object.assign(new Error(error.message), { name: error.name, stack: error.stack });
    default:
      return error satisfies never;
  }
}
