/**
 * Backing up the embedded database while Baton runs. PGlite lives inside the server
 * process and no second process may open its files, so the server takes the backup
 * itself: `npm run db:backup` drops a request file into the data directory and sends
 * the server SIGUSR2; the server writes the backup and a `.done` answer beside the
 * request. Local only (a signal and a file), so it needs no token and opens no port.
 *
 * The server also claims its data directory with a pid file, so a second embedded
 * server (or a restore) cannot open the same files underneath it.
 */
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { chmod, mkdir, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { backupPglite, type BackupResult, type BackupSource } from "./embedded-backup.ts";
import { log } from "../observability/log.ts";
import { ensurePrivateDir, PRIVATE_FILE_MODE } from "../db/private-files.ts";

const PID_FILE = "server.pid";
const REQUESTS_DIR = "backup-requests";

/** The pid of a live process holding `dataDir`, or null. */
export function liveOwnerOf(dataDir: string): number | null {
  const file = path.join(dataDir, PID_FILE);
  if (!existsSync(file)) return null;
  const pid = Number.parseInt(readFileSync(file, "utf8").trim(), 10);
  if (!Number.isSafeInteger(pid) || pid <= 0) return null;
  try {
    process.kill(pid, 0);
    return pid;
  } catch (error) {
    // EPERM: alive but not ours to signal — still alive
    return (error as NodeJS.ErrnoException).code === "EPERM" ? pid : null;
  }
}

export class DataDirBusyError extends Error {
  override name = "DataDirBusyError";
}

/**
 * Claims `dataDir` for this process (a pid file) and answers backup requests on SIGUSR2.
 * Returns the release function. Throws DataDirBusyError if a live process holds it.
 */
export async function claimDataDir(input: { dataDir: string; pglite: BackupSource }): Promise<() => Promise<void>> {
  const dataDir = path.resolve(input.dataDir);
  await mkdir(dataDir, { recursive: true });
  const owner = liveOwnerOf(dataDir);
  if (owner !== null && owner !== process.pid) {
    throw new DataDirBusyError(`the embedded database in ${dataDir} is in use by process ${owner}; stop it first`);
  }
  await writeFile(path.join(dataDir, PID_FILE), `${process.pid}\n`, { mode: PRIVATE_FILE_MODE });
  await chmod(path.join(dataDir, PID_FILE), PRIVATE_FILE_MODE);
  let busy = Promise.resolve();
  const onSignal = () => {
    busy = busy
      .then(() => answerRequests(dataDir, input.pglite))
      .catch((error: unknown) => {
        log.error({ err: error }, "backup request failed");
      });
  };
  process.on("SIGUSR2", onSignal);
  return async () => {
    process.off("SIGUSR2", onSignal);
    await busy;
    if (liveOwnerOf(dataDir) === process.pid) await rm(path.join(dataDir, PID_FILE), { force: true });
  };
}

interface BackupRequest {
  file: string;
}

type BackupAnswer = { ok: true; result: BackupResult } | { ok: false; error: string };

async function answerRequests(dataDir: string, pglite: BackupSource): Promise<void> {
  const dir = path.join(dataDir, REQUESTS_DIR);
  if (!existsSync(dir)) return;
  for (const name of await readdir(dir)) {
    if (!name.endsWith(".request.json")) continue;
    const requestFile = path.join(dir, name);
    let answer: BackupAnswer;
    try {
      const request = JSON.parse(await readFile(requestFile, "utf8")) as BackupRequest;
      if (typeof request.file !== "string" || !path.isAbsolute(request.file)) throw new Error("request.file must be an absolute path");
      answer = { ok: true, result: await backupPglite(pglite, request.file) };
    } catch (error) {
      answer = { ok: false, error: error instanceof Error ? error.message : String(error) };
    }
    const done = requestFile.replace(/\.request\.json$/, ".done.json");
    await writeFile(`${done}.partial`, JSON.stringify(answer), { mode: PRIVATE_FILE_MODE });
    await rename(`${done}.partial`, done);
    await rm(requestFile, { force: true });
  }
}

/** Asks the server holding `dataDir` (process `pid`) for a backup into `file`, and waits for it. */
export async function requestLiveBackup(input: { dataDir: string; pid: number; file: string; timeoutMs?: number }): Promise<BackupResult> {
  const dir = path.join(path.resolve(input.dataDir), REQUESTS_DIR);
  await ensurePrivateDir(dir);
  const id = `${Date.now()}-${randomBytes(4).toString("hex")}`;
  const requestFile = path.join(dir, `${id}.request.json`);
  const doneFile = path.join(dir, `${id}.done.json`);
  await writeFile(`${requestFile}.partial`, JSON.stringify({ file: path.resolve(input.file) } satisfies BackupRequest), {
    mode: PRIVATE_FILE_MODE,
  });
  await rename(`${requestFile}.partial`, requestFile);
  process.kill(input.pid, "SIGUSR2");
  const deadline = Date.now() + (input.timeoutMs ?? 120_000);
  while (Date.now() < deadline) {
    if (existsSync(doneFile)) {
      const answer = JSON.parse(await readFile(doneFile, "utf8")) as BackupAnswer;
      await rm(doneFile, { force: true });
      if (!answer.ok) throw new Error(`the server could not write the backup: ${answer.error}`);
      return answer.result;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await rm(requestFile, { force: true });
  throw new Error(`process ${input.pid} did not answer the backup request within ${Math.round((input.timeoutMs ?? 120_000) / 1000)} s`);
}
