// The embedded database's thread (started by pglite-thread.ts). It owns the one PGlite on
// the data directory and answers requests through PGlite's and Prisma's public APIs only:
// PGlite's `query`, `exec`, `dumpDataDir` and `close`, and the SqlDriverAdapter that
// pglite-prisma-adapter builds on this PGlite (`queryRaw`, `executeRaw`, `startTransaction`,
// a transaction's `commit`/`rollback`). Plain JavaScript, so that Node runs it as it is
// under tsx, vitest and the compiled server alike.
//
// Requests are answered as they come, not one after another: PGlite's own mutexes order
// them, exactly as on one thread (a statement outside an open transaction waits for it to
// end, while the transaction's own statements go on).
import { parentPort, workerData } from "node:worker_threads";
import { messages, PGlite } from "@electric-sql/pglite";
// the same extensions as pglite-extensions.ts (a .ts module this file cannot import)
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";
import { isDriverAdapterError } from "@prisma/driver-adapter-utils";
import { PrismaPGlite } from "pglite-prisma-adapter";

const port = parentPort;
let pglite;
let adapter;
try {
  // a data directory on disk, or (tests) in memory from a `dumpDataDir` tarball's bytes
  const { dataDir, loadDataDir } = workerData;
  pglite = await PGlite.create({
    dataDir,
    loadDataDir: loadDataDir ? new Blob([loadDataDir]) : undefined,
    extensions: { pg_trgm },
  });
  adapter = await new PrismaPGlite(pglite).connect();
} catch (error) {
  port.postMessage({ type: "failed", error: describeError(error) });
  process.exit(1);
}

/** open Prisma transactions by id, until their commit or rollback */
const transactions = new Map();
let nextTransactionId = 1;

const operations = {
  async query({ sql, params }) {
    const { rows, fields, affectedRows } = await pglite.query(sql, params);
    return { rows, fields, affectedRows };
  },
  async exec({ sql }) {
    const results = await pglite.exec(sql);
    return results.map(({ rows, fields, affectedRows }) => ({ rows, fields, affectedRows }));
  },
  queryRaw: ({ query, transactionId }) => queryable(transactionId).queryRaw(query),
  executeRaw: ({ query, transactionId }) => queryable(transactionId).executeRaw(query),
  // awaited here: the adapter's own executeScript does not wait for the script, so an
  // error in it would escape as an unhandled rejection
  async executeScript({ script }) {
    await pglite.exec(script);
  },
  async begin({ isolationLevel }) {
    const transaction = await adapter.startTransaction(isolationLevel);
    const id = nextTransactionId++;
    transactions.set(id, transaction);
    return { id, options: transaction.options };
  },
  commit: ({ transactionId }) => finish(transactionId, (transaction) => transaction.commit()),
  rollback: ({ transactionId }) => finish(transactionId, (transaction) => transaction.rollback()),
  async dump({ compression }) {
    const blob = await pglite.dumpDataDir(compression);
    return blob.arrayBuffer();
  },
  async close() {
    await pglite.close();
  },
};

function queryable(transactionId) {
  if (transactionId === undefined) return adapter;
  const transaction = transactions.get(transactionId);
  if (!transaction) throw new Error(`no open transaction ${transactionId} on the embedded database's thread`);
  return transaction;
}

async function finish(transactionId, end) {
  const transaction = queryable(transactionId);
  transactions.delete(transactionId);
  await end(transaction);
}

function describeError(error) {
  if (isDriverAdapterError(error)) return { kind: "adapter", cause: error.cause };
  if (error instanceof messages.DatabaseError) {
    // every field PostgreSQL sent (code, severity, detail, constraint…), as own properties
    return { kind: "database", message: error.message, fields: { ...error } };
  }
  if (error instanceof Error) return { kind: "other", name: error.name, message: error.message, stack: error.stack };
  return { kind: "other", name: "Error", message: String(error) };
}

port.on("message", async ({ id, op, ...request }) => {
  try {
    const value = await operations[op](request);
    const transfer = value instanceof ArrayBuffer ? [value] : [];
    port.postMessage({ id, ok: true, value }, transfer);
  } catch (error) {
    port.postMessage({ id, ok: false, error: describeError(error) });
  }
});
port.postMessage({ type: "ready" });
