/**
 * The embedded database's files are private to the server's user (issue 42): a fresh
 * data folder and one left world-readable by an older version alike.
 */
import { chmod, mkdtemp, readdir, rm, stat, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openDatabase } from "./database.ts";

const scratch: string[] = [];
afterAll(async () => {
  for (const dir of scratch) await rm(dir, { recursive: true, force: true });
});

/** the permission bits of everything under `root`, by relative path */
async function modes(root: string): Promise<Map<string, { dir: boolean; mode: number }>> {
  const found = new Map<string, { dir: boolean; mode: number }>();
  const walk = async (at: string) => {
    const info = await stat(at);
    found.set(path.relative(root, at) || ".", { dir: info.isDirectory(), mode: info.mode & 0o777 });
    if (info.isDirectory()) for (const entry of await readdir(at)) await walk(path.join(at, entry));
  };
  await walk(root);
  return found;
}

function expectPrivate(found: Map<string, { dir: boolean; mode: number }>) {
  const open = [...found].filter(([, { dir, mode }]) => mode !== (dir ? 0o700 : 0o600));
  expect(open.map(([name, { mode }]) => `${name} ${mode.toString(8)}`)).toEqual([]);
  expect(found.size).toBeGreaterThan(10);
}

describe("the embedded database's files", () => {
  it("are 0700 folders and 0600 files when created, and stay so after it closes", async () => {
    const root = await mkdtemp(path.join(os.tmpdir(), "baton-private-"));
    scratch.push(root);
    const dataDir = path.join(root, "pglite");
    const db = await openDatabase({ dataDir, migrate: false });
    expectPrivate(await modes(dataDir));
    await db.close();
    expectPrivate(await modes(dataDir));
  }, 120_000);

  it("are made private at start when an older version left them open", async () => {
    const root = await mkdtemp(path.join(os.tmpdir(), "baton-private-"));
    scratch.push(root);
    const dataDir = path.join(root, "pglite");
    await (await openDatabase({ dataDir, migrate: false })).close();
    await chmod(dataDir, 0o777);
    await writeFile(path.join(dataDir, "left-open"), "x", { mode: 0o666 });
    await chmod(path.join(dataDir, "left-open"), 0o666);
    const db = await openDatabase({ dataDir, migrate: false });
    expectPrivate(await modes(dataDir));
    await db.close();
  }, 120_000);
});
