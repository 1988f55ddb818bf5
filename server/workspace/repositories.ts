/**
 * Repositories agents work on: an admin registers one (the root of a repository on
 * the server, or an http(s)/ssh remote the server clones within a time limit, its
 * credentials kept server-side), and a conversation's owner links the conversation
 * to one and a base branch.
 */
import { existsSync } from "node:fs";
import { realpath, rm } from "node:fs/promises";
import path from "node:path";
import type { z } from "zod";
import type { repositoryInputSchema } from "../protocol/rest/workspace.ts";
import type { PrismaClient } from "../generated/prisma/client.ts";
import { assertAdmin, assertMember, assertOwner, type Actor } from "../access/actor.ts";
import { conflict, invalidInput, notFound } from "../protocol/errors.ts";
import { git, GitError, resolveCommit } from "./git.ts";
import { ensurePrivateDir } from "../db/private-files.ts";

/** A clone may take a while; past this it is given up (and its folder removed). */
export const CLONE_TIMEOUT_MS = 5 * 60_000;

/** A clone never waits for a password prompt: credentials go in the URL or the server's ssh keys. */
const NON_INTERACTIVE = { GIT_TERMINAL_PROMPT: "0", GIT_SSH_COMMAND: "ssh -o BatchMode=yes -o ConnectTimeout=30" };

// the request schemas live in the route table (protocol/rest/workspace.ts), which the browser shares
export { repositoryInputSchema } from "../protocol/rest/workspace.ts";

/** The clone URL without user name or password, for lists and logs. */
export function redactRemote(url: string | null): string | null {
  if (url == null) return null;
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^@/]*@/i, "$1***@");
}

const repositorySelect = { id: true, name: true, path: true, cloneUrl: true, baseBranch: true, createdAt: true } as const;

function toDTO(repository: { id: string; name: string; path: string; cloneUrl: string | null; baseBranch: string; createdAt: Date }) {
  return {
    id: repository.id,
    name: repository.name,
    path: repository.path,
    remote: redactRemote(repository.cloneUrl),
    baseBranch: repository.baseBranch,
    createdAt: repository.createdAt.toISOString(),
  };
}
export type RepositoryDTO = ReturnType<typeof toDTO>;

/**
 * The path must be a repository's root: a bare repository itself, or the top of a
 * work tree — never a folder inside one (slots and accepts act on the whole repository).
 */
async function assertRepositoryRoot(repoPath: string): Promise<void> {
  const bare = await git(["rev-parse", "--is-bare-repository"], { cwd: repoPath, okExitCodes: [128] });
  if (bare.exitCode !== 0) throw invalidInput(`path: ${repoPath} is not a git repository`);
  const real = await realpath(repoPath);
  if (bare.stdout.trim() === "true") {
    const gitDir = (await git(["rev-parse", "--absolute-git-dir"], { cwd: repoPath })).stdout.trim();
    if ((await realpath(gitDir)) !== real) throw invalidInput(`path: ${repoPath} is inside the bare repository ${gitDir}, not its root`);
    return;
  }
  const top = await git(["rev-parse", "--show-toplevel"], { cwd: repoPath, okExitCodes: [128] });
  if (top.exitCode !== 0 || !top.stdout.trim()) throw invalidInput(`path: ${repoPath} is inside a repository's .git folder, not its root`);
  const root = top.stdout.trim();
  if ((await realpath(root)) !== real) throw invalidInput(`path: ${repoPath} is inside the repository ${root}; register its root`);
}

/** A repository's branches (for choosing a conversation's base branch), admins only. */
export async function listRepositoryBranches(
  prisma: PrismaClient,
  input: { actor: Actor | null; repositoryId: string },
): Promise<{ branches: string[]; baseBranch: string }> {
  assertAdmin(input.actor);
  const repository = await prisma.repository.findUnique({ where: { id: input.repositoryId }, select: { path: true, baseBranch: true } });
  if (!repository) throw notFound("repository");
  const { stdout } = await git(["for-each-ref", "--format=%(refname:short)", "--sort=refname", "refs/heads/"], { cwd: repository.path });
  // Baton's own slot and result branches are not bases to work from
  const branches = stdout.split("\n").filter((branch) => branch && !branch.startsWith("baton/"));
  return { branches, baseBranch: repository.baseBranch };
}

async function assertBranch(repoPath: string, branch: string): Promise<void> {
  if (!(await resolveCommit(repoPath, `refs/heads/${branch}`))) throw invalidInput(`baseBranch: no branch "${branch}" in the repository`);
}

export async function listRepositories(prisma: PrismaClient, { actor }: { actor: Actor | null }): Promise<RepositoryDTO[]> {
  assertAdmin(actor);
  const repositories = await prisma.repository.findMany({ orderBy: { name: "asc" }, select: repositorySelect });
  return repositories.map(toDTO);
}

export async function registerRepository(
  prisma: PrismaClient,
  input: { actor: Actor | null; input: z.output<typeof repositoryInputSchema>; repositoriesDir: string },
): Promise<RepositoryDTO> {
  const actor = assertAdmin(input.actor);
  const { name, baseBranch } = input.input;
  if (await prisma.repository.findUnique({ where: { name }, select: { id: true } })) throw conflict(`A repository named "${name}" exists.`);
  let repoPath: string;
  if (input.input.path != null) {
    if (!path.isAbsolute(input.input.path)) throw invalidInput("path: must be absolute");
    repoPath = path.resolve(input.input.path);
    if (!existsSync(repoPath)) throw invalidInput(`path: ${repoPath} does not exist`);
    await assertRepositoryRoot(repoPath);
  } else {
    // clones of private repositories: private to the server's user, wherever BATON_REPOS_DIR points
    await ensurePrivateDir(input.repositoriesDir);
    repoPath = path.join(input.repositoriesDir, `${name}.git`);
    if (existsSync(repoPath)) throw conflict(`${repoPath} exists already`);
    try {
      await git(
        [
          "-c",
          "protocol.ext.allow=never",
          "-c",
          "protocol.file.allow=never",
          "clone",
          "--bare",
          "--quiet",
          "--",
          input.input.cloneUrl!,
          repoPath,
        ],
        { cwd: input.repositoriesDir, timeoutMs: CLONE_TIMEOUT_MS, env: NON_INTERACTIVE },
      );
    } catch (error) {
      await rm(repoPath, { recursive: true, force: true });
      // git's message may quote the URL, credentials included
      if (error instanceof GitError) throw invalidInput(`cloneUrl: the clone failed${error.timedOut ? " (timed out)" : ""}`);
      throw error;
    }
  }
  await assertBranch(repoPath, baseBranch);
  const created = await prisma.repository.create({
    data: { name, path: repoPath, cloneUrl: input.input.cloneUrl ?? null, baseBranch, createdByUserId: actor.id },
    select: repositorySelect,
  });
  return toDTO(created);
}

/** The repository a conversation works on, for its members (no server path, no remote). */
export async function getConversationRepository(prisma: PrismaClient, input: { actor: Actor | null; conversationId: string }) {
  await assertMember(prisma, input.actor, input.conversationId);
  const conversation = await prisma.conversation.findUnique({
    where: { id: input.conversationId },
    select: { repositoryBaseBranch: true, repository: { select: { id: true, name: true, baseBranch: true } } },
  });
  if (!conversation?.repository) return { repository: null };
  const { repository } = conversation;
  return {
    repository: { id: repository.id, name: repository.name, baseBranch: conversation.repositoryBaseBranch ?? repository.baseBranch },
  };
}

/**
 * Link a conversation to a repository and base branch, or unlink it (null). Owners
 * may unlink; linking gives the conversation's agents branches in the repository,
 * so it takes an admin who owns the conversation.
 */
export async function setConversationRepository(
  prisma: PrismaClient,
  input: { actor: Actor | null; conversationId: string; repositoryId: string | null; baseBranch?: string },
) {
  await assertOwner(prisma, input.actor, input.conversationId);
  if (input.repositoryId != null) assertAdmin(input.actor);
  if (input.repositoryId == null) {
    await prisma.conversation.update({ where: { id: input.conversationId }, data: { repositoryId: null, repositoryBaseBranch: null } });
    return { repository: null };
  }
  const repository = await prisma.repository.findUnique({ where: { id: input.repositoryId }, select: { id: true, path: true } });
  if (!repository) throw notFound("repository");
  if (input.baseBranch) await assertBranch(repository.path, input.baseBranch);
  await prisma.conversation.update({
    where: { id: input.conversationId },
    data: { repositoryId: repository.id, repositoryBaseBranch: input.baseBranch ?? null },
  });
  return getConversationRepository(prisma, input);
}
