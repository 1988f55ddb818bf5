/**
 * Confining an agent's paths to its slot. A path is relative, has no `..`, does
 * not reach into `.git` (hooks and config live there), and no symbolic link on
 * the way leads out of the slot. Every tool resolves its paths here first.
 */
import { lstat, readlink, realpath } from "node:fs/promises";
import path from "node:path";

export class SlotPathError extends Error {
  readonly code = "slot-path-refused";
  constructor(requested: string, reason: string) {
    super(`Path "${requested}" refused: ${reason}. Use a path relative to the repository root, inside it.`);
    this.name = "SlotPathError";
  }
}

/** Checks that need no file system: relative, no `..`, no `.git`, no control characters. */
export function checkRelativePath(requested: string): string[] {
  // eslint-disable-next-line no-control-regex -- control characters are what a path must not hold
  if (/[\u0000-\u001f]/.test(requested)) throw new SlotPathError(requested, "control characters");
  if (path.isAbsolute(requested) || requested.startsWith("\\") || /^[A-Za-z]:/.test(requested)) {
    throw new SlotPathError(requested, "absolute paths are not allowed");
  }
  const segments = requested.split(/[/\\]+/).filter((segment) => segment !== "" && segment !== ".");
  if (segments.includes("..")) throw new SlotPathError(requested, "'..' is not allowed");
  if (segments[0]?.toLowerCase() === ".git") throw new SlotPathError(requested, "the .git folder is not a workspace file");
  return segments;
}

function isInside(root: string, candidate: string): boolean {
  return candidate === root || candidate.startsWith(root + path.sep);
}

async function lstatOrNull(target: string) {
  try {
    return await lstat(target);
  } catch {
    return null;
  }
}

/**
 * The absolute path of `requested` inside the slot. Each existing component is
 * checked: a symbolic link must resolve inside the slot (a dangling one is refused,
 * since writing through it would create its target wherever it points).
 */
export async function resolveInSlot(slotRoot: string, requested: string): Promise<string> {
  const segments = checkRelativePath(requested);
  const root = await realpath(slotRoot);
  let current = root;
  for (const segment of segments) {
    const next = path.join(current, segment);
    const stats = await lstatOrNull(next);
    if (!stats) {
      current = next;
      continue;
    }
    if (stats.isSymbolicLink()) {
      let resolved: string;
      try {
        resolved = await realpath(next);
      } catch {
        const target = await readlink(next);
        throw new SlotPathError(requested, `it goes through a broken symbolic link (to ${target})`);
      }
      if (!isInside(root, resolved)) throw new SlotPathError(requested, "a symbolic link leads outside the workspace");
      current = resolved;
    } else {
      current = next;
    }
  }
  if (!isInside(root, current)) throw new SlotPathError(requested, "it is outside the workspace");
  const relative = path.relative(root, current).split(path.sep);
  if (relative[0]?.toLowerCase() === ".git") throw new SlotPathError(requested, "the .git folder is not a workspace file");
  return current;
}
