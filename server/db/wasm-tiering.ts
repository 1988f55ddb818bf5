// PGlite's PostgreSQL is 9 MB of WebAssembly, and V8 first runs each wasm function in its
// baseline compiler (Liftoff), moving it to the optimizing one (TurboFan) only once it has
// executed roughly 13 MB worth of code (`--wasm-tiering-budget`). A function a statement
// calls a few times takes thousands of statements to get there: in a server warmed up by
// a few hundred steps, a third of the database thread's WebAssembly time was still spent
// in baseline code. With dynamic tiering off, V8 optimizes each function in the background
// as soon as it is first compiled. Measured (docs/decisions/2026-12-01-server-latency.md,
// "Twenty-second round"): a fresh PGlite's first thousand inserts 0.16–0.18 ms each
// against 0.25–0.33; the in-process benchmark's chain through the agent runtime 3.3–4.5 ms
// a step against 5.9–6.1; the server's CPU a step about a fifth lower; the server ready
// about a second later on a fresh data directory.
//
// The option is process-wide and read when a module is compiled, so it is set before the
// embedded database compiles PGlite (on its thread or this one); modules compiled earlier
// (Prisma's query compiler) keep the default. Node does not take V8 options of this kind in
// NODE_OPTIONS, and setting it here covers every way the server is started.
import v8 from "node:v8";

/** From now on, this process optimizes WebAssembly as soon as it compiles it (setting it again changes nothing). */
export function optimizeWebAssemblyEagerly(): void {
  v8.setFlagsFromString("--no-wasm-dynamic-tiering");
}
