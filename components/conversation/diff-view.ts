/**
 * A unified diff cut into one part per file, each as a fenced markdown block of the
 * `diff` language, so the Markdown component highlights it (rehype-highlight, no eval:
 * fine under the app's CSP) and sanitizes it like any untrusted text.
 */

export interface FileDiff {
  path: string;
  text: string;
}

/** One part per `diff --git` header; the path is the `b/` side's. */
export function splitDiff(diff: string): FileDiff[] {
  const parts: FileDiff[] = [];
  for (const chunk of diff.split(/^(?=diff --git )/m)) {
    if (!chunk.startsWith("diff --git ")) continue;
    const header = chunk.slice(0, chunk.indexOf("\n") === -1 ? undefined : chunk.indexOf("\n"));
    const path = / b\/(.*)$/.exec(header)?.[1] ?? header.slice("diff --git ".length);
    parts.push({ path, text: chunk.replace(/\n$/, "") });
  }
  return parts;
}

/** The text as a fenced `diff` block whose fence no run of backticks in the text can close. */
export function diffFence(text: string): string {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((match) => match[0].length));
  const fence = "`".repeat(Math.max(3, longest + 1));
  return `${fence}diff\n${text}\n${fence}`;
}
