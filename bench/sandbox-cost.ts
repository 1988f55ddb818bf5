/**
 * What the sandbox costs a command: `npm test` of a tiny package (its test script
 * runs node) timed sandboxed and unsandboxed, the median of RUNS each, after one
 * warm-up run of each. Run with `npm run bench:sandbox`.
 */
import { spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { commandEnvironment } from "../server/workspace/command.ts";
import { createSandbox, type PreparedCommand, type Sandbox } from "../server/workspace/sandbox.ts";

const RUNS = Number(process.env.RUNS ?? 10);

function run(prepared: PreparedCommand): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(prepared.argv[0], prepared.argv.slice(1), { cwd: prepared.cwd, env: prepared.env, stdio: "ignore" });
    child.on("error", reject);
    child.on("close", (code) => (code === 0 ? resolve() : reject(new Error(`exit ${code}`))));
  });
}

async function time(sandbox: Sandbox, slotPath: string): Promise<number> {
  const started = performance.now();
  const prepared = await sandbox.prepare({ slotPath, command: ["npm", "test"], env: commandEnvironment() });
  try {
    await run(prepared);
  } finally {
    prepared.release();
  }
  return performance.now() - started;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

const slot = await mkdtemp(path.join(tmpdir(), "baton-bench-slot-"));
await writeFile(path.join(slot, "package.json"), JSON.stringify({ name: "tiny", private: true, scripts: { test: "node test.js" } }));
await writeFile(path.join(slot, "test.js"), "if (1 + 1 !== 2) process.exit(1);\n");
try {
  const sandboxed = createSandbox();
  const status = await sandboxed.status();
  if (status.state !== "ready") throw new Error(`the sandbox is not ready: ${JSON.stringify(status)}`);
  // the same code path without the sandbox: what BATON_UNSANDBOXED_COMMANDS=1 does on a server without bubblewrap
  const bare = createSandbox({ programs: { bwrap: "/nonexistent/bwrap" }, allowUnsandboxed: true });
  await time(sandboxed, slot);
  await time(bare, slot);
  const timings = { sandboxed: [] as number[], unsandboxed: [] as number[] };
  for (let index = 0; index < RUNS; index++) {
    timings.sandboxed.push(await time(sandboxed, slot));
    timings.unsandboxed.push(await time(bare, slot));
  }
  const [withSandbox, without] = [median(timings.sandboxed), median(timings.unsandboxed)];
  console.log(`npm test of a tiny package, median of ${RUNS} runs each:`);
  console.log(`  sandboxed    ${withSandbox.toFixed(0)} ms`);
  console.log(`  unsandboxed  ${without.toFixed(0)} ms`);
  console.log(`  the sandbox adds ${(withSandbox - without).toFixed(0)} ms (${(withSandbox / without).toFixed(2)}x)`);
} finally {
  await rm(slot, { recursive: true, force: true });
  process.exit(0);
}
