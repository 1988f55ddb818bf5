/** Repositories and durable slots in the database: registration, the conversation link, the pool, resume. */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { createTestDatabase, type TestDatabase } from "../db/testing/test-database.ts";
import type { Actor } from "../auth/actor.ts";
import { createGitFixture, commitSubjects, type GitFixture } from "./testing/git-fixture.ts";
import { git } from "./git.ts";
import {
  getConversationRepository,
  listRepositories,
  listRepositoryBranches,
  registerRepository,
  repositoryInputSchema,
  setConversationRepository,
} from "./repositories.ts";
import { acquireSlot, commitStepSlot, countSlotsInUse, findStepSlot, removeEndedSlots, SlotPoolFullError } from "./slot-store.ts";
import { readWorkspaceSettings } from "./settings.ts";
import { slotsOverview } from "./slots-overview.ts";

let db: TestDatabase;
let fixture: GitFixture;
let admin: Actor;
let member: Actor;
let conversationId: string;

beforeAll(async () => {
  db = await createTestDatabase({ kind: "embedded" });
});
afterAll(async () => {
  await db?.close();
});
beforeEach(async () => {
  fixture = await createGitFixture({ "a.txt": "a\n", "b.txt": "b\n" });
  const adminUser = await db.prisma.user.create({
    data: { id: randomUUID(), name: "Ada", email: `ada-${randomUUID()}@example.com`, role: "admin" },
  });
  const memberUser = await db.prisma.user.create({ data: { id: randomUUID(), name: "Bo", email: `bo-${randomUUID()}@example.com` } });
  admin = { id: adminUser.id, role: "admin" };
  member = { id: memberUser.id, role: "member" };
  const conversation = await db.prisma.conversation.create({
    data: {
      title: "code",
      memberships: {
        create: [
          { userId: adminUser.id, role: "owner" },
          { userId: memberUser.id, role: "owner" },
        ],
      },
    },
  });
  conversationId = conversation.id;
});
afterEach(async () => {
  await db.prisma.slot.deleteMany();
  await db.prisma.conversation.deleteMany();
  await db.prisma.repository.deleteMany();
  await fixture.cleanup();
});

async function register(name: string, extra: Record<string, unknown> = { path: fixture.repoPath }) {
  return registerRepository(db.prisma, {
    actor: admin,
    input: repositoryInputSchema.parse({ name, ...extra }),
    repositoriesDir: path.join(fixture.root, "repositories"),
  });
}

async function newPlan(): Promise<string> {
  const plan = await db.prisma.plan.create({ data: { conversationId, title: "p", maxParallel: 4, request: "r" } });
  return plan.id;
}

describe("repositories", () => {
  it("an admin registers a path on the server; a member may not, nor list them", async () => {
    const repository = await register("demo");
    expect(repository).toMatchObject({ name: "demo", path: fixture.repoPath, remote: null, baseBranch: "main" });
    await expect(
      registerRepository(db.prisma, {
        actor: member,
        input: repositoryInputSchema.parse({ name: "x", path: fixture.repoPath }),
        repositoriesDir: fixture.root,
      }),
    ).rejects.toMatchObject({ code: "forbidden" });
    await expect(listRepositories(db.prisma, { actor: member })).rejects.toMatchObject({ code: "forbidden" });
    expect((await listRepositories(db.prisma, { actor: admin })).map((entry) => entry.name)).toEqual(["demo"]);
  });

  it("clones a remote over http into the server's folder and never shows its credentials", async () => {
    // git's "dumb" http protocol: the bare repository's files served as they are, no network beyond this machine
    await git(["update-server-info"], { cwd: fixture.repoPath });
    const server = createServer((request, response) => {
      const file = path.join(fixture.root, decodeURIComponent(new URL(request.url ?? "/", "http://x").pathname));
      readFile(file).then(
        (content) => response.end(content),
        () => response.writeHead(404).end(),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const repository = await register("cloned", { cloneUrl: `http://127.0.0.1:${port}/repo.git` });
      expect(repository.path).toBe(path.join(fixture.root, "repositories", "cloned.git"));
      expect(existsSync(path.join(repository.path, "HEAD"))).toBe(true);
    } finally {
      server.close();
    }
    const stored = await db.prisma.repository.update({
      where: { name: "cloned" },
      data: { cloneUrl: "https://bot:s3cret@example.com/team/app.git" },
    });
    expect(stored.cloneUrl).toContain("s3cret");
    const listed = await listRepositories(db.prisma, { actor: admin });
    expect(listed[0].remote).toBe("https://***@example.com/team/app.git");
    expect(JSON.stringify(listed)).not.toContain("s3cret");
  });

  it("takes only a repository's root as a path, and only http(s), ssh or scp-like clone URLs", async () => {
    await expect(register("inside", { path: path.join(fixture.repoPath, "refs") })).rejects.toThrow(/is inside the bare repository/);
    const clone = path.join(fixture.root, "work");
    await git(["clone", "--quiet", fixture.repoPath, clone], { cwd: fixture.root });
    await mkdir(path.join(clone, "src"));
    await expect(register("sub", { path: path.join(clone, "src") })).rejects.toThrow(
      `is inside the repository ${clone}; register its root`,
    );
    await expect(register("dotgit", { path: path.join(clone, ".git") })).rejects.toThrow(/not its root/);
    expect((await register("work", { path: clone })).path).toBe(clone);
    for (const cloneUrl of [`file://${fixture.repoPath}`, fixture.repoPath, "ext::sh -c evil", "--upload-pack=evil", "ftp://host/x.git"])
      expect(repositoryInputSchema.safeParse({ name: "x", cloneUrl }).success).toBe(false);
    for (const cloneUrl of ["https://github.com/team/app.git", "ssh://git@host:2222/app.git", "git@github.com:team/app.git"])
      expect(repositoryInputSchema.safeParse({ name: "x", cloneUrl }).success).toBe(true);
  });

  it("refuses bad input with a message naming the field", async () => {
    expect(repositoryInputSchema.safeParse({ name: "x", path: "/a", cloneUrl: "/b" }).success).toBe(false);
    expect(repositoryInputSchema.safeParse({ name: "x", cloneUrl: "--upload-pack=evil" }).success).toBe(false);
    expect(repositoryInputSchema.safeParse({ name: "x", cloneUrl: "ext::sh -c evil" }).success).toBe(false);
    await expect(register("rel", { path: "relative/path" })).rejects.toThrow("path: must be absolute");
    await expect(register("nogit", { path: fixture.root })).rejects.toThrow(/is not a git repository/);
    await expect(register("nobranch", { path: fixture.repoPath, baseBranch: "develop" })).rejects.toThrow(
      'baseBranch: no branch "develop"',
    );
    await expect(register("badclone", { cloneUrl: "http://127.0.0.1:9/missing.git" })).rejects.toThrow("cloneUrl: the clone failed");
    expect(existsSync(path.join(fixture.root, "repositories", "badclone.git"))).toBe(false);
    await register("demo");
    await expect(register("demo")).rejects.toMatchObject({ code: "conflict" });
  });

  it("an admin owner links a conversation to a repository and branch; members see the name only", async () => {
    const repository = await register("demo");
    await expect(
      setConversationRepository(db.prisma, { actor: member, conversationId, repositoryId: repository.id }),
    ).rejects.toMatchObject({
      code: "forbidden",
    });
    await expect(
      setConversationRepository(db.prisma, { actor: admin, conversationId, repositoryId: repository.id, baseBranch: "nope" }),
    ).rejects.toThrow('no branch "nope"');
    expect(
      await setConversationRepository(db.prisma, { actor: admin, conversationId, repositoryId: repository.id, baseBranch: "main" }),
    ).toEqual({
      repository: { id: repository.id, name: "demo", baseBranch: "main" },
    });
    expect(JSON.stringify(await getConversationRepository(db.prisma, { actor: member, conversationId }))).not.toContain(fixture.repoPath);
    const outsider: Actor = { id: randomUUID(), role: "member" };
    await expect(getConversationRepository(db.prisma, { actor: outsider, conversationId })).rejects.toMatchObject({ code: "not_found" });
    expect(await setConversationRepository(db.prisma, { actor: member, conversationId, repositoryId: null })).toEqual({ repository: null });
  });
});

describe("durable slots", () => {
  it("resumes a step's slot from its row instead of recreating it; a commit is not doubled", async () => {
    const repository = await register("demo");
    const planId = await newPlan();
    const input = {
      repositoryId: repository.id,
      planId,
      stepIndex: 1,
      base: { commit: "main" },
      slotsDir: path.join(fixture.root, "slots"),
      limit: 4,
    };
    const first = await acquireSlot(db.prisma, input);
    expect(first).toMatchObject({ branch: `baton/${planId}-1`, resumed: false, baseCommit: fixture.initialCommit });
    await writeFile(path.join(first.path, "a.txt"), "changed\n");
    const committed = await commitStepSlot(db.prisma, { slot: first, runId: "run-1", agentHandle: "coder", message: "Step 1" });
    // the process is killed here; another one takes the step over and ends the run again
    const again = await acquireSlot(db.prisma, input);
    expect(again).toMatchObject({
      id: first.id,
      path: first.path,
      resumed: true,
      headCommit: committed.commit,
      baseCommit: fixture.initialCommit,
    });
    expect((await commitStepSlot(db.prisma, { slot: again, runId: "run-1", agentHandle: "coder", message: "Step 1" })).created).toBe(false);
    expect(await commitSubjects(fixture.repoPath, `${fixture.initialCommit}..${again.branch}`)).toEqual(["Step 1"]);
    expect(await db.prisma.slot.count()).toBe(1);
    expect(await findStepSlot(db.prisma, { planId, stepIndex: 1 })).toMatchObject({ headCommit: committed.commit });
  });

  it("counts a slot in the pool only while its step runs; a resume needs no place", async () => {
    const repository = await register("demo");
    const planId = await newPlan();
    await db.prisma.planStep.createMany({
      data: [1, 2, 3, 4].map((index) => ({
        planId,
        index,
        title: `s${index}`,
        assignee: "coder",
        input: "x",
        maxRetries: 0,
        status: "in_progress" as const,
      })),
    });
    const slotsDir = path.join(fixture.root, "slots");
    const acquire = (stepIndex: number) =>
      acquireSlot(db.prisma, { repositoryId: repository.id, planId, stepIndex, base: { commit: "main" }, slotsDir, limit: 2 });
    await Promise.all([acquire(1), acquire(2)]);
    await expect(acquire(3)).rejects.toBeInstanceOf(SlotPoolFullError);
    expect((await acquire(2)).resumed).toBe(true);
    expect(await countSlotsInUse(db.prisma, repository.id)).toBe(2);
    // the admin's slots view: the pool's use and the slots on disk; nobody else's
    expect((await slotsOverview(db.prisma, { actor: admin, limit: 2 })).repositories).toMatchObject([
      { name: "demo", inUse: 2, limit: 2, active: [{ stepIndex: 1, stepStatus: "in_progress" }, { stepIndex: 2 }] },
    ]);
    await expect(slotsOverview(db.prisma, { actor: member, limit: 2 })).rejects.toMatchObject({ code: "forbidden" });
    // a base branch is chosen among the repository's own branches, not Baton's
    expect(await listRepositoryBranches(db.prisma, { actor: admin, repositoryId: repository.id })).toEqual({
      branches: ["main"],
      baseBranch: "main",
    });
    await expect(listRepositoryBranches(db.prisma, { actor: member, repositoryId: repository.id })).rejects.toMatchObject({
      code: "forbidden",
    });
    // step 1 ends: its slot keeps its worktree (the plan runs on) but gives its place back
    await db.prisma.planStep.update({ where: { planId_index: { planId, index: 1 } }, data: { status: "done" } });
    expect(await countSlotsInUse(db.prisma, repository.id)).toBe(1);
    const third = await acquire(3);
    expect(third.resumed).toBe(false);
    expect(existsSync((await findStepSlot(db.prisma, { planId, stepIndex: 1 }))!.path)).toBe(true);
    await expect(acquire(4)).rejects.toBeInstanceOf(SlotPoolFullError);
    // the plan ends: every worktree goes, the branches stay
    await db.prisma.plan.update({ where: { id: planId }, data: { endedAt: new Date() } });
    expect(await removeEndedSlots(db.prisma, { slotsDir, now: new Date(Date.now() + 1000) })).toBe(3);
    expect(await db.prisma.slot.count({ where: { status: "active" } })).toBe(0);
    expect(await commitSubjects(fixture.repoPath, `baton/${planId}-1`)).toEqual(["Initial commit"]);
  });

  it("gives the place back when upstream branches conflict", async () => {
    const repository = await register("demo");
    const planId = await newPlan();
    const slotsDir = path.join(fixture.root, "slots");
    const acquire = (stepIndex: number, base: Parameters<typeof acquireSlot>[1]["base"]) =>
      acquireSlot(db.prisma, { repositoryId: repository.id, planId, stepIndex, base, slotsDir, limit: 3 });
    for (const stepIndex of [1, 2]) {
      const slot = await acquire(stepIndex, { commit: "main" });
      await writeFile(path.join(slot.path, "a.txt"), `version ${stepIndex}\n`);
      await commitStepSlot(db.prisma, { slot, runId: `r${stepIndex}`, agentHandle: "coder", message: `Step ${stepIndex}` });
    }
    await expect(acquire(3, { mergeOf: [`baton/${planId}-1`, `baton/${planId}-2`], fallback: "main" })).rejects.toMatchObject({
      code: "merge-conflict",
    });
    expect(await db.prisma.slot.count()).toBe(2);
  });

  it("reads the pool size from BATON_SLOTS_PER_REPO, default 4, refusing nonsense", () => {
    expect(readWorkspaceSettings({}).slotsPerRepository).toBe(4);
    expect(readWorkspaceSettings({ BATON_SLOTS_PER_REPO: "2", BATON_DATA_DIR: "/srv/baton" })).toEqual({
      slotsPerRepository: 2,
      slotsDir: "/srv/baton/slots",
      repositoriesDir: "/srv/baton/repositories",
      slotRetentionMs: 24 * 3_600_000,
      slotsMaxBytes: 5 * 1024 ** 3,
    });
    expect(() => readWorkspaceSettings({ BATON_SLOTS_PER_REPO: "0" })).toThrow(/BATON_SLOTS_PER_REPO/);
    expect(readWorkspaceSettings({ BATON_SLOT_RETENTION_MS: "3600000", BATON_SLOTS_MAX_BYTES: "2000000" })).toMatchObject({
      slotRetentionMs: 3_600_000,
      slotsMaxBytes: 2_000_000,
    });
    expect(() => readWorkspaceSettings({ BATON_SLOT_RETENTION_MS: "soon" })).toThrow(/^BATON_SLOT_RETENTION_MS: /);
    expect(() => readWorkspaceSettings({ BATON_SLOTS_MAX_BYTES: "10" })).toThrow(/^BATON_SLOTS_MAX_BYTES: /);
  });
});
