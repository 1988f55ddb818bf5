/**
 * Starts Baton the way a user does (`npm start`): `next build` unless a fresh build
 * exists, the server compiled to JavaScript (`npm run build:server`), then a child
 * process running it with NODE_ENV=production, on its own free port and data
 * directory, with the automation API's token set.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { randomBytes } from "node:crypto";
import { READINESS_PATH } from "../../server/ops/ops-routes.ts";

const ROOT = path.resolve(import.meta.dirname, "../..");
/** what a production build is made from: newer than .next/BUILD_ID means rebuild */
const BUILD_INPUTS = ["app", "components", "server", "next.config.ts", "postcss.config.mjs", "package-lock.json", "tsconfig.json"];

function newestSourceMtime(entry: string): number {
  const full = path.join(ROOT, entry);
  if (!fs.existsSync(full)) return 0;
  const stat = fs.statSync(full);
  if (!stat.isDirectory()) return /\.test\.tsx?$/.test(entry) ? 0 : stat.mtimeMs;
  let newest = 0;
  for (const child of fs.readdirSync(full)) {
    if (child === "generated" || child === "node_modules") continue;
    newest = Math.max(newest, newestSourceMtime(path.join(entry, child)));
  }
  return newest;
}

/** the compiled server `npm start` runs (package.json's build:server) */
const SERVER_BUNDLE = "build/server/index.mjs";

function run(command: string, args: string[]): void {
  const result = spawnSync(command, args, {
    cwd: ROOT,
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1", NODE_ENV: "production" },
    stdio: ["ignore", "pipe", "pipe"],
    encoding: "utf8",
  });
  if (result.status !== 0) throw new Error(`${command} ${args.join(" ")} failed:\n${result.stdout}\n${result.stderr}`);
}

/** Builds the app unless .next holds a build newer than every source file; compiles the server (seconds) every time. */
export function ensureProductionBuild(log: (line: string) => void): void {
  const buildId = path.join(ROOT, ".next", "BUILD_ID");
  const built = fs.existsSync(buildId) ? fs.statSync(buildId).mtimeMs : 0;
  const newest = Math.max(...BUILD_INPUTS.map(newestSourceMtime));
  if (built > newest) log("reusing the production build in .next (newer than every source file)");
  else {
    log("building the app (next build)…");
    run("npx", ["next", "build"]);
  }
  log("compiling the server (npm run build:server)…");
  run("npm", ["run", "--silent", "build:server"]);
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
    server.on("error", reject);
  });
}

export interface BatonServer {
  baseURL: string;
  token: string;
  /** processes that share a database must share it too, or one's session cookies are foreign to another */
  authSecret: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/**
 * One server process. `databaseUrl` unset: the embedded database in a fresh temporary
 * directory. BATON_BENCH_NODE_ARGS (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`) go to its
 * node, for profiling the server under the benchmark's load.
 */
export async function startServer(input: {
  databaseUrl?: string;
  token?: string;
  authSecret?: string;
  label: string;
  /** the server's entry, relative to the repository (default server/index.ts, what `npm start` runs) */
  entry?: string;
  /** more environment for this process (e.g. BATON_ROLE) */
  env?: Record<string, string>;
}): Promise<BatonServer> {
  const port = await freePort();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "baton-bench-"));
  const token = input.token ?? randomBytes(24).toString("hex");
  const authSecret = input.authSecret ?? randomBytes(32).toString("hex");
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: "production",
    NEXT_TELEMETRY_DISABLED: "1",
    PORT: String(port),
    HOST: "127.0.0.1",
    BATON_DATA_DIR: dataDir,
    BATON_API_TOKEN: token,
    // the benchmark's 100 "browsers" come from one address; as behind a load balancer,
    // each names its own in X-Forwarded-For (the handshake limit is per address)
    BATON_TRUST_PROXY: "1",
    // and they share one person's session: the per-user handshake limit would refuse most
    BATON_SOCKET_HANDSHAKES_PER_USER: "100000",
    BETTER_AUTH_SECRET: authSecret,
    BATON_SEED_DEMO: "0",
    BATON_DEFAULT_MODEL: "offline",
  };
  // the level the person running the benchmark chose, not the in-process part's quiet one
  if (env.BATON_BENCH_CALLER_LOG_LEVEL !== undefined) {
    if (env.BATON_BENCH_CALLER_LOG_LEVEL) env.LOG_LEVEL = env.BATON_BENCH_CALLER_LOG_LEVEL;
    else delete env.LOG_LEVEL;
  }
  delete env.DATABASE_URL;
  delete env.ANTHROPIC_API_KEY;
  delete env.OPENAI_API_KEY;
  delete env.BETTER_AUTH_URL;
  if (input.databaseUrl) env.DATABASE_URL = input.databaseUrl;
  Object.assign(env, input.env);
  // what `npm start` runs (the compiled server), as node's own process so signals and flags reach it
  const nodeArgs = (process.env.BATON_BENCH_NODE_ARGS ?? "").split(/\s+/).filter(Boolean);
  // another entry (the scale bench's node without pages) runs from source
  const entryArgs = input.entry ? ["--import", "tsx", input.entry] : ["--enable-source-maps", SERVER_BUNDLE];
  const child = spawn(process.execPath, [...nodeArgs, ...entryArgs], {
    cwd: ROOT,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const remember = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-20_000);
  };
  child.stdout.on("data", remember);
  child.stderr.on("data", remember);
  // ready when its readiness probe answers 200 (as a load balancer sees it), not when a
  // log line appears: LOG_LEVEL=warn hides that line
  const baseURL = `http://127.0.0.1:${port}`;
  await new Promise<void>((resolve, reject) => {
    let settled = false;
    const settle = (error?: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timeout);
      child.off("exit", exited);
      if (error) reject(error);
      else resolve();
    };
    const timeout = setTimeout(() => settle(new Error(`${input.label}: the server was not ready in 180 s:\n${output}`)), 180_000);
    const exited = (code: number | null) =>
      settle(new Error(`${input.label}: the server exited (${code}) before it was ready:\n${output}`));
    child.once("exit", exited);
    const probe = async () => {
      while (!settled) {
        const ready = await fetch(`${baseURL}${READINESS_PATH}`).then(
          (response) => response.ok,
          () => false,
        );
        if (ready) return settle();
        await new Promise((wait) => setTimeout(wait, 100));
      }
    };
    void probe();
  });
  let stopped: Promise<void> | undefined;
  return {
    baseURL,
    token,
    authSecret,
    child,
    stop: () =>
      (stopped ??= new Promise<void>((resolve) => {
        const removeDataDir = () => fs.rmSync(dataDir, { recursive: true, force: true });
        // already gone (exited, or killed by a signal: then exitCode stays null)
        if (child.exitCode !== null || child.signalCode !== null) {
          removeDataDir();
          return resolve();
        }
        const kill = setTimeout(() => child.kill("SIGKILL"), 15_000);
        child.once("exit", () => {
          clearTimeout(kill);
          removeDataDir();
          resolve();
        });
        child.kill("SIGTERM");
      })),
  };
}
