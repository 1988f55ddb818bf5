/**
 * The substring half of message search (message-search.ts): English full-text search
 * cannot see a word inside a Chinese, Japanese or Korean sentence (the whole run of
 * characters is one token), so the query's terms are also looked for as substrings.
 * These helpers turn the web-search syntax people type into those terms, and cut a
 * plain-text snippet around what matched.
 */
import type { SearchSegment } from "../protocol/rest/search.ts";

export interface SubstringTerms {
  /** terms that must appear (every one, or any one when the query said `or`) */
  include: string[];
  /** terms that must not appear (`-word`, `-"a phrase"`) */
  exclude: string[];
  /** true when the query joined its terms with `or` */
  any: boolean;
}

/** Splits web-search syntax ("a phrase", -excluded, or) into substring terms, as websearch_to_tsquery reads it. */
export function substringTerms(query: string): SubstringTerms {
  const include: string[] = [];
  const exclude: string[] = [];
  let any = false;
  for (const match of query.matchAll(/(-?)(?:"([^"]*)"?|(\S+))/g)) {
    const negated = match[1] === "-";
    const term = (match[2] ?? match[3] ?? "").trim();
    if (!term) continue;
    if (!negated && match[3] !== undefined && term.toLowerCase() === "or") {
      any = true;
      continue;
    }
    (negated ? exclude : include).push(term);
  }
  return { include, exclude, any };
}

/** A LIKE pattern that matches `term` anywhere, its own `%`, `_` and `\` taken literally. */
export function containsPattern(term: string): string {
  return `%${term.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
}

const SNIPPET_CONTEXT = 60;

/**
 * Plain-text segments of `body` around the first place a term occurs (case-insensitive),
 * every occurrence inside the window marked `hit`; the start of `body` when none occurs.
 */
export function substringSnippet(body: string, terms: string[]): SearchSegment[] {
  const wanted = terms.filter(Boolean).map((term) => term.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  const finder = wanted.length ? new RegExp(wanted.join("|"), "giu") : null;
  const center = finder ? Math.max(0, body.search(finder)) : 0;
  const start = codePointBoundary(body, Math.max(0, center - SNIPPET_CONTEXT));
  const end = codePointBoundary(body, Math.min(body.length, center + SNIPPET_CONTEXT * 2));
  const window = body.slice(start, end);
  const segments: SearchSegment[] = [];
  if (start > 0) segments.push({ text: "… ", hit: false });
  let at = 0;
  if (finder) {
    for (const hit of window.matchAll(finder)) {
      if (!hit[0]) continue;
      if (hit.index > at) segments.push({ text: window.slice(at, hit.index), hit: false });
      segments.push({ text: hit[0], hit: true });
      at = hit.index + hit[0].length;
    }
  }
  if (at < window.length) segments.push({ text: window.slice(at), hit: false });
  if (end < body.length) segments.push({ text: " …", hit: false });
  return segments;
}

/** `index`, moved forward off the second half of a surrogate pair so no character is cut. */
function codePointBoundary(text: string, index: number): number {
  const code = text.charCodeAt(index);
  return code >= 0xdc00 && code <= 0xdfff ? index + 1 : index;
}
