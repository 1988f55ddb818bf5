// The worker_threads side of server/db/pglite-thread.ts: owns the real PGlite (its WASM
// runs here, on its own core, instead of blocking the server's event loop) and answers
// one request at a time with raw PostgreSQL protocol bytes. Everything else — parsing
// results, DatabaseError, transactions, type parsers — stays PGlite's own code in the
// main thread, so the Prisma adapter sees exactly what it saw with an in-thread PGlite.
//
// Plain JavaScript on purpose: a .ts worker would need tsx's loader in the worker, and
// the server runs under tsx, the tests under vitest, the scripts under tsx again — a .mjs
// file starts the same way under all of them.
import { parentPort, workerData } from "node:worker_threads";
import { PGlite } from "@electric-sql/pglite";
import { EmscriptenBuiltinFilesystem } from "@electric-sql/pglite/basefs";
// the same extensions as pglite-extensions.ts (a .mjs worker cannot import that .ts file)
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";

/** @type {import("node:worker_threads").MessagePort} */
const port = /** @type {any} */ (parentPort);

/** @type {PGlite} */
let pglite;
try {
  pglite = await PGlite.create({ dataDir: workerData.dataDir, extensions: { pg_trgm } });
  // A data directory on disk (NodeFS) or in memory writes through as statements run: its
  // syncToFs is the base class's no-op, and the client skips asking for it.
  const syncsToFs = pglite.fs?.syncToFs !== EmscriptenBuiltinFilesystem.prototype.syncToFs;
  port.postMessage({ type: "ready", syncsToFs });
} catch (error) {
  port.postMessage({ type: "failed", error: describe(error) });
  process.exit(1);
}

port.on("message", (request) => {
  void answer(request);
});

/** @param {{ id: number, op: string, message?: Uint8Array, compression?: string }} request */
async function answer(request) {
  try {
    const { value, transfer } = await run(request);
    port.postMessage({ id: request.id, ok: true, value }, transfer);
  } catch (error) {
    port.postMessage({ id: request.id, ok: false, error: describe(error) });
  }
  if (request.op === "close") port.close(); // nothing left to do: let the thread end
}

/** @param {{ op: string, message?: Uint8Array, compression?: string }} request */
async function run(request) {
  switch (request.op) {
    case "exec": {
      // execProtocolRawStream, not execProtocolRaw: the latter also parses every reply
      // into a list that nothing ever empties (PGlite 0.5.17), a leak over millions of
      // statements. The chunks are views of WASM memory, so they are copied here.
      /** @type {Uint8Array[]} */
      const chunks = [];
      await pglite.execProtocolRawStream(/** @type {Uint8Array} */ (request.message), {
        syncToFs: false,
        onRawData: (chunk) => chunks.push(chunk.slice()),
      });
      const bytes = concat(chunks);
      return { value: bytes, transfer: [bytes.buffer] };
    }
    case "sync":
      await pglite.syncToFs();
      return { value: null, transfer: [] };
    case "dump": {
      const blob = await pglite.dumpDataDir(/** @type {any} */ (request.compression));
      const buffer = await blob.arrayBuffer();
      return { value: buffer, transfer: [buffer] };
    }
    case "close":
      await pglite.close();
      return { value: null, transfer: [] };
    default:
      throw new Error(`unknown request ${request.op}`);
  }
}

/** @param {Uint8Array[]} chunks one buffer of exactly their bytes, so it can be transferred whole */
function concat(chunks) {
  if (chunks.length === 1) return /** @type {Uint8Array} */ (chunks[0]);
  const bytes = new Uint8Array(chunks.reduce((n, chunk) => n + chunk.length, 0));
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.length;
  }
  return bytes;
}

/** @param {unknown} error */
function describe(error) {
  return error instanceof Error
    ? { name: error.name, message: error.message, stack: error.stack }
    : { name: "Error", message: String(error) };
}
