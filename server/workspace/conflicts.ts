/**
 * Reading a merge conflict: the files `git merge-tree` names, and in each the
 * hunks between its conflict markers. Pure, so a conflict report is tested
 * without a repository.
 */

export interface ConflictHunk {
  /** 1-based line of the `<<<<<<<` marker in the merged file */
  line: number;
  ours: string[];
  theirs: string[];
}

export interface FileConflict {
  path: string;
  hunks: ConflictHunk[];
}

/**
 * Parse `git merge-tree --write-tree --name-only -z` output: the tree id, then
 * each conflicted path, then an empty field, then messages.
 */
export function parseMergeTreeOutput(stdout: string): { tree: string; conflicted: string[] } {
  const fields = stdout.split("\0");
  const tree = (fields[0] ?? "").trim();
  if (!/^[0-9a-f]{40,64}$/.test(tree)) throw new Error(`merge-tree printed no tree id: ${JSON.stringify(stdout.slice(0, 80))}`);
  const conflicted: string[] = [];
  for (const field of fields.slice(1)) {
    if (field === "") break;
    if (!conflicted.includes(field)) conflicted.push(field);
  }
  return { tree, conflicted };
}

/** The conflict hunks of a file written with merge markers (`<<<<<<<`, `=======`, `>>>>>>>`). */
export function parseConflictHunks(text: string): ConflictHunk[] {
  const lines = text.split("\n");
  const hunks: ConflictHunk[] = [];
  let current: ConflictHunk | null = null;
  let side: "ours" | "base" | "theirs" = "ours";
  lines.forEach((line, index) => {
    if (line.startsWith("<<<<<<<")) {
      current = { line: index + 1, ours: [], theirs: [] };
      side = "ours";
    } else if (current && line.startsWith("|||||||")) {
      side = "base";
    } else if (current && line.startsWith("=======")) {
      side = "theirs";
    } else if (current && line.startsWith(">>>>>>>")) {
      hunks.push(current);
      current = null;
    } else if (current && side !== "base") {
      current[side].push(line);
    }
  });
  return hunks;
}

/** One line per file and hunk, for a step failure a person or the commander reads. */
export function describeConflicts(conflicts: FileConflict[]): string {
  return conflicts
    .map((conflict) => {
      const where = conflict.hunks.map((hunk) => `line ${hunk.line}`).join(", ");
      return `${conflict.path}: ${conflict.hunks.length} conflicting hunk(s)${where ? ` at ${where}` : " (add/delete or binary)"}`;
    })
    .join("\n");
}
