/**
 * What the server writes outside the database is private to its user too (issue 42):
 * the data folder's pid file and backup requests, the folders that hold repository
 * clones and step slots (checked-out code, files agents wrote), whatever the umask and
 * wherever BATON_REPOS_DIR and BATON_SLOTS_DIR point.
 */
import { mkdtemp, rm, stat } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { claimDataDir } from "./live-backup.ts";
import type { BackupSource } from "./embedded-backup.ts";
import { ensureSlot } from "../workspace/slots.ts";
import { registerRepository } from "../workspace/repositories.ts";
import { createGitFixture } from "../workspace/testing/git-fixture.ts";
import { createExecutorFixture, type ExecutorFixture } from "../executor/testing/executor-fixture.ts";

const modeOf = async (file: string) => (await stat(file)).mode & 0o777;

let root: string;
let previousUmask: number;

beforeAll(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), "baton-private-writes-"));
  // the usual umask: what it does not take away, the server must
  previousUmask = process.umask(0o022);
});

afterAll(async () => {
  process.umask(previousUmask);
  await rm(root, { recursive: true, force: true });
});

describe("files the server writes", () => {
  it("the data folder's pid file is 0600", async () => {
    const dataDir = path.join(root, "data");
    // no backup is asked for here: the source is never read
    const release = await claimDataDir({ dataDir, pglite: {} as BackupSource });
    try {
      expect((await modeOf(path.join(dataDir, "server.pid"))).toString(8)).toBe("600");
    } finally {
      await release();
    }
  });

  it("a slots folder made for a step is 0700, its parents too", async () => {
    const git = await createGitFixture({ "a.txt": "alpha\n" });
    try {
      const slotsDir = path.join(root, "elsewhere", "slots");
      const slotsRoot = path.join(slotsDir, "repository-1");
      await ensureSlot({ repoPath: git.repoPath, slotsRoot, planId: "plan1", stepId: "s1", base: { commit: "main" } });
      expect((await modeOf(slotsRoot)).toString(8)).toBe("700");
      expect((await modeOf(slotsDir)).toString(8)).toBe("700");
    } finally {
      await git.cleanup();
    }
  });

  it("the repositories folder is 0700", async () => {
    let fixture: ExecutorFixture | undefined;
    try {
      fixture = await createExecutorFixture();
      const repositoriesDir = path.join(root, "elsewhere", "repositories");
      // the clone fails (no such host), but the folder it would go in is made first
      await registerRepository(fixture.db.prisma, {
        actor: { id: fixture.userId, role: "admin" },
        input: { name: "nowhere", baseBranch: "main", cloneUrl: "https://nowhere.invalid/x.git" },
        repositoriesDir,
      }).catch(() => {});
      expect((await modeOf(repositoriesDir)).toString(8)).toBe("700");
    } finally {
      await fixture?.close();
    }
  });
});
