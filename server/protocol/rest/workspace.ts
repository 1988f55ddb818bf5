/**
 * Code a plan's workspace steps produced (server/workspace): each step's change, the
 * plan's branches and result branch, merging them, and accepting the result.
 * Members read and merge; fast-forwarding the base branch takes an owner.
 */
import { z } from "zod";
import { defineRoute } from "./define.ts";

const branchName = z
  .string()
  .trim()
  .min(1)
  .max(200)
  .regex(/^(?!-)(?!.*\.\.)(?!.*\/\/)[A-Za-z0-9._/-]+(?<![./])$/, "a branch name: letters, digits, '.', '_', '-', '/'");

/**
 * Clone URLs Baton accepts: http(s), ssh, and scp-like `user@host:path`. Never a local
 * path, `file://` or a transport helper (`ext::`), which would let a registration
 * read the server's disk or run a program.
 */
export const CLONE_URL =
  /^(?:(?:https?|ssh):\/\/[^\s/@]*@?[A-Za-z0-9.[\]:-]+(?::\d+)?\/\S*|[A-Za-z0-9._-]+@[A-Za-z0-9.-]+:(?!\/\/)[^\s:]\S*)$/;

/** An admin registers a repository: a path on the server, or a remote the server clones (its credentials stay there). */
export const repositoryInputSchema = z
  .object({
    name: z.string().regex(/^[a-z0-9_-]{1,40}$/, "lowercase letters, digits, - and _ (max 40)"),
    path: z.string().min(1).max(1000).optional().describe("an absolute path to a git repository on the server"),
    cloneUrl: z.string().min(1).max(2000).regex(CLONE_URL, "an http(s)://, ssh:// or scp-like (git@host:path) URL").optional(),
    baseBranch: branchName.default("main"),
  })
  .strict()
  .refine((input) => (input.path == null) !== (input.cloneUrl == null), { message: "give either path or cloneUrl, not both" });

/** Link a conversation to a repository and base branch, or unlink it (null). */
export const conversationRepositorySchema = z
  .object({ repositoryId: z.string().min(1).max(100).nullable(), baseBranch: branchName.optional() })
  .strict();

const repositorySchema = z.object({
  id: z.string(),
  name: z.string(),
  path: z.string(),
  /** the clone URL without credentials */
  remote: z.string().nullable(),
  baseBranch: z.string(),
  createdAt: z.string(),
});

/** Admins: a repository's active slots and how much of its pool is in use. */
export const slotsOverviewSchema = z.object({
  repositories: z.array(
    z.object({
      id: z.string(),
      name: z.string(),
      /** slots whose step runs */
      inUse: z.number(),
      limit: z.number(),
      /** slots with a worktree on disk (running steps, and ended steps of plans still running) */
      active: z.array(
        z.object({
          planId: z.string(),
          planTitle: z.string(),
          conversationId: z.string(),
          stepIndex: z.number(),
          branch: z.string(),
          stepStatus: z.string(),
          since: z.string(),
        }),
      ),
    }),
  ),
});
export type SlotsOverview = z.infer<typeof slotsOverviewSchema>;

const conversationRepositoryAnswer = z.object({
  repository: z.object({ id: z.string(), name: z.string(), baseBranch: z.string() }).nullable(),
});

export const diffStatsSchema = z.object({
  files: z.array(
    z.object({
      path: z.string(),
      /** A added, M modified, D deleted, T type changed */
      status: z.string(),
      added: z.number(),
      deleted: z.number(),
      binary: z.boolean(),
    }),
  ),
  added: z.number(),
  deleted: z.number(),
});

export const stepChangeSchema = z.object({
  branch: z.string(),
  baseCommit: z.string(),
  headCommit: z.string(),
  commits: z.array(z.object({ sha: z.string(), subject: z.string(), author: z.string(), at: z.string() })),
  stats: diffStatsSchema,
  /** the unified diff against the slot's base, cut (and saying so) past a size */
  diff: z.string(),
});
export type StepChange = z.infer<typeof stepChangeSchema>;

export const planWorkspaceSchema = z.object({
  baseBranch: z.string().nullable(),
  branches: z.array(z.object({ stepIndex: z.number(), branch: z.string(), headCommit: z.string().nullable() })),
  result: z.object({ branch: z.string(), commit: z.string(), accepted: z.boolean(), canFastForward: z.boolean() }).nullable(),
  canAccept: z.boolean(),
});
export type PlanWorkspace = z.infer<typeof planWorkspaceSchema>;

const conflictSchema = z.object({
  path: z.string(),
  hunks: z.array(z.object({ line: z.number(), ours: z.array(z.string()), theirs: z.array(z.string()) })),
});

/** what a merge really did: merged (with the branches and stats) or a conflict naming files and hunks */
export const mergeResultSchema = z.discriminatedUnion("ok", [
  z.object({ ok: z.literal(true), branch: z.string(), commit: z.string(), merged: z.array(z.string()), stats: diffStatsSchema }),
  z.object({ ok: z.literal(false), branch: z.string(), conflicts: z.array(conflictSchema) }),
]);
export type MergeResult = z.infer<typeof mergeResultSchema>;

export const workspaceRoutes = {
  /** admins: the repositories agents may work on */
  repositories: defineRoute({
    method: "GET",
    path: "/api/admin/repositories",
    response: z.object({ repositories: z.array(repositorySchema) }),
  }),
  /** admins register a repository by server path or clone URL (the clone happens in the request) */
  registerRepository: defineRoute({
    method: "POST",
    path: "/api/admin/repositories",
    body: repositoryInputSchema,
    response: z.object({ repository: repositorySchema }),
    status: 201,
  }),
  /** admins: a repository's branches, to choose a conversation's base branch from */
  repositoryBranches: defineRoute({
    method: "GET",
    path: "/api/admin/repositories/:repositoryId/branches",
    response: z.object({ branches: z.array(z.string()), baseBranch: z.string() }),
  }),
  /** admins: every repository's pool use and active slots */
  slots: defineRoute({ method: "GET", path: "/api/admin/slots", response: slotsOverviewSchema }),
  /** members: the repository and base branch the conversation's workspace steps work on (no server path) */
  conversationRepository: defineRoute({
    method: "GET",
    path: "/api/conversations/:conversationId/repository",
    response: conversationRepositoryAnswer,
  }),
  /** link (an admin who owns the conversation) or unlink (any owner) */
  linkRepository: defineRoute({
    method: "PUT",
    path: "/api/conversations/:conversationId/repository",
    body: conversationRepositorySchema,
    response: conversationRepositoryAnswer,
  }),
  /** a workspace step's change; `change: null` for a step that works in no slot */
  stepChange: defineRoute({
    method: "GET",
    path: "/api/conversations/:conversationId/plans/:planId/steps/:stepIndex/change",
    response: z.object({ change: stepChangeSchema.nullable() }),
  }),
  /** the plan's branches and result branch */
  plan: defineRoute({
    method: "GET",
    path: "/api/conversations/:conversationId/plans/:planId/merge",
    response: planWorkspaceSchema,
  }),
  /** members merge the plan's branches into its result branch; a conflict is an answer (ok: false), not an error */
  merge: defineRoute({
    method: "POST",
    path: "/api/conversations/:conversationId/plans/:planId/merge",
    response: mergeResultSchema,
  }),
  /** owners fast-forward the base branch to the result branch; 409 when the base moved since the merge */
  accept: defineRoute({
    method: "POST",
    path: "/api/conversations/:conversationId/plans/:planId/accept",
    response: z.object({ baseBranch: z.string(), from: z.string(), to: z.string() }),
  }),
  /** the result as a patch (text/x-patch, a download): the browser links to it with `apiPath` */
  patch: defineRoute({ method: "GET", path: "/api/conversations/:conversationId/plans/:planId/patch", response: null }),
};
