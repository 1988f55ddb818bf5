/**
 * Imported first by bench/run.ts: the in-process executor logs each run at `info`, which
 * would bury the printed tables. The server child is started with the caller's own
 * LOG_LEVEL (bench/server/launch.ts), as a user would run it.
 */
process.env.BATON_BENCH_CALLER_LOG_LEVEL = process.env.LOG_LEVEL ?? "";
process.env.LOG_LEVEL ??= "warn";
