/**
 * For profiling the server's hot path: `BATON_BENCH_NODE_ARGS="--cpu-prof --cpu-prof-dir=DIR"
 * npx tsx bench/server/profile-chains.ts` warms a production server up (every route the
 * bench uses loaded), then runs one chain of LENGTH (default 200) zero-time steps and
 * stops the server at once, so the profile's last seconds are that chain alone.
 * PROFILE_DATABASE_URL runs it on that (scratch) PostgreSQL database.
 */
import { chain } from "../dags.ts";
import { startServer } from "./launch.ts";
import { measureHops, openSession, runPlan } from "./measure.ts";
import { median } from "./workloads.ts";

const length = Number(process.env.LENGTH ?? 200);
const server = await startServer({ label: "profile", databaseUrl: process.env.PROFILE_DATABASE_URL });
try {
  const session = await openSession(server, "profile");
  const hops = await measureHops(session, 1);
  console.log(`warm-up: hop median ${median(hops.hops)} ms; server CPU per step ${hops.cpuPerStepMs[0]?.toFixed(2)} ms`);
  console.log(
    `  parts (medians): model end → finishing unit ${median(hops.parts.tail)} ms, → next run ${median(hops.parts.decide)} ms, → its model call ${median(hops.parts.start)} ms`,
  );
  const submit = hops.submitParts;
  console.log(
    `  submit → first model call ${median(hops.submitToFirstCall)} ms: request → creating unit ${median(submit.request)} ms, → first run claimed ${median(submit.dispatch)} ms, → its model call ${median(submit.start)} ms`,
  );
  const run = await runPlan(session, "profiled chain", chain(length), 1, false);
  const ms = run.endedAt - run.submittedAt;
  console.log(
    `profiled chain of ${length}: ${ms} ms, ${(ms / length).toFixed(2)} ms/step; server CPU ${(run.serverCpuMs / length).toFixed(2)} ms/step`,
  );
  session.watcher.close();
} finally {
  await server.stop();
}
process.exit(0);
