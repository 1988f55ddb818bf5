/** Workspace settings from the environment, read once where dependencies are wired. */
import path from "node:path";
import { z } from "zod";

export const DEFAULT_SLOTS_PER_REPO = 4;
/** how long the branches of an ended plan nobody merged are kept (its worktrees go when it ends) */
export const DEFAULT_SLOT_RETENTION_MS = 24 * 3_600_000;
/** the slots folder may hold this much before new slots are refused */
export const DEFAULT_SLOTS_MAX_BYTES = 5 * 1024 ** 3;

const schema = z.object({
  BATON_DATA_DIR: z.string().default("./data"),
  /** how many slots of one repository may be in use at once (a slot is in use while its step runs) */
  BATON_SLOTS_PER_REPO: z.coerce.number().int().min(1).max(256).default(DEFAULT_SLOTS_PER_REPO),
  /** where slot worktrees go (default: <data dir>/slots) */
  BATON_SLOTS_DIR: z.string().optional(),
  /** where repositories registered by clone URL are cloned (default: <data dir>/repositories) */
  BATON_REPOS_DIR: z.string().optional(),
  /** the branches of plans nobody merged are deleted this long after the plan ended (ms) */
  BATON_SLOT_RETENTION_MS: z.coerce.number().int().min(60_000).default(DEFAULT_SLOT_RETENTION_MS),
  /** no new slot while the slots folder holds more than this (bytes) */
  BATON_SLOTS_MAX_BYTES: z.coerce.number().int().min(1_000_000).default(DEFAULT_SLOTS_MAX_BYTES),
});

export interface WorkspaceSettings {
  slotsPerRepository: number;
  slotsDir: string;
  repositoriesDir: string;
  /** default DEFAULT_SLOT_RETENTION_MS */
  slotRetentionMs?: number;
  /** default DEFAULT_SLOTS_MAX_BYTES */
  slotsMaxBytes?: number;
}

export function readWorkspaceSettings(env: Record<string, string | undefined> = process.env): WorkspaceSettings {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`${issue.path.join(".")}: ${issue.message}`);
  }
  const data = path.resolve(parsed.data.BATON_DATA_DIR);
  return {
    slotsPerRepository: parsed.data.BATON_SLOTS_PER_REPO,
    slotsDir: path.resolve(parsed.data.BATON_SLOTS_DIR ?? path.join(data, "slots")),
    repositoriesDir: path.resolve(parsed.data.BATON_REPOS_DIR ?? path.join(data, "repositories")),
    slotRetentionMs: parsed.data.BATON_SLOT_RETENTION_MS,
    slotsMaxBytes: parsed.data.BATON_SLOTS_MAX_BYTES,
  };
}
