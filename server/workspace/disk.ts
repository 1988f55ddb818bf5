/**
 * How much the slots folder holds on disk, to bound it. A walk of the folder that
 * counts file sizes without following symbolic links, and stops as soon as the
 * total passes the limit (a full folder is not walked to its end on every refusal).
 */
import type { Dirent } from "node:fs";
import { lstat, readdir } from "node:fs/promises";
import path from "node:path";

export class SlotsDiskFullError extends Error {
  readonly code = "slots-disk-full";
  constructor(
    readonly usedBytes: number,
    readonly maxBytes: number,
  ) {
    super(
      `The slots folder holds more than ${formatBytes(maxBytes)} (BATON_SLOTS_MAX_BYTES); no new slot is made until ` +
        `the worktrees of ended plans are removed. The step waits and is retried.`,
    );
    this.name = "SlotsDiskFullError";
  }
}

export function formatBytes(bytes: number): string {
  const units = ["bytes", "KiB", "MiB", "GiB", "TiB"];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return unit === 0 ? `${bytes} bytes` : `${Number.isInteger(value) ? value : value.toFixed(1)} ${units[unit]}`;
}

/**
 * The bytes of the files under `root` (0 when it does not exist), counted up to just
 * past `stopAbove`: a result above it means "more than", not the exact total.
 */
export async function folderBytes(root: string, stopAbove = Number.POSITIVE_INFINITY): Promise<number> {
  let total = 0;
  const pending = [root];
  while (pending.length > 0 && total <= stopAbove) {
    const folder = pending.pop()!;
    let entries: Dirent[];
    try {
      entries = await readdir(folder, { withFileTypes: true });
    } catch {
      continue; // gone meanwhile (a slot removed while counting), or unreadable
    }
    const files: string[] = [];
    for (const entry of entries) {
      if (entry.isDirectory()) pending.push(path.join(folder, entry.name));
      else files.push(path.join(folder, entry.name));
    }
    const sizes = await Promise.all(
      files.map((file) =>
        lstat(file).then(
          (stats) => stats.size,
          () => 0, // removed while counting
        ),
      ),
    );
    for (const size of sizes) total += size;
  }
  return total;
}
