// The real PGlite worker, plus a fault: a statement whose text holds CRASH_MARKER makes
// the thread throw an uncaught error mid-request, as a WASM abort or an out-of-memory
// would. For pglite-thread.int.test.ts: what the server sees when its database thread dies.
import { parentPort } from "node:worker_threads";

const CRASH_MARKER = "crash the database thread";

// listening before the real worker does (it is imported below), so the throw comes
// before that statement runs
parentPort?.on("message", (request) => {
  if (request.op === "exec" && Buffer.from(request.message).includes(CRASH_MARKER)) {
    throw new Error("simulated crash of the database thread");
  }
});

await import("../pglite-thread-worker.mjs");
