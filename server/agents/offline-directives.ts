/**
 * The offline model's vocabulary: the `@offline …` directive line and the
 * heuristics that find a list of items in a request. Pure functions, kept apart
 * from the model so they can be tested and documented on their own.
 *
 *   @offline sleep=MS pause=MS fail=transient|fatal|malformed|refuse fail_attempts=N block=1|secret|typed summary="…" decision=retry|skip|abort file=PATH
 */
import { truncateText } from "../core/text.ts";

export interface OfflineDirective {
  /** simulate work for this long (abortable) */
  sleepMs: number;
  /** stream the first half of the answer, then wait this long before the rest (abortable): a run stopped mid-answer */
  pauseMs: number;
  /**
   * transient | fatal: the model call fails; malformed: every call of the run sends a
   * tool call whose arguments do not parse; refuse: the provider's content filter stops
   * the output (the last two are failures a stronger model could fix: escalation)
   */
  fail: "transient" | "fatal" | "malformed" | "refuse" | null;
  /** fail only the first N attempts of a step; null = every attempt */
  failAttempts: number | null;
  block: boolean;
  /** block=secret: the form's one field is secret */
  blockSecret: boolean;
  /** block=typed: the form has one field of every type (text, long text, choice, number, yes/no, secret) */
  blockTyped: boolean;
  summary: string | null;
  /** in a workspace slot: the file the findings go to (default findings/<item>.md) */
  file: string | null;
  decision: "retry" | "skip" | "abort" | null;
}

export const NO_DIRECTIVE: OfflineDirective = {
  sleepMs: 0,
  pauseMs: 0,
  fail: null,
  failAttempts: null,
  block: false,
  blockSecret: false,
  blockTyped: false,
  summary: null,
  file: null,
  decision: null,
};

const DIRECTIVE_LINE = /^[ \t>*-]*@offline\b(.*)$/gm;
const PAIR = /([a-z_]+)=(?:"((?:[^"\\]|\\.)*)"|(\S+))/g;

/**
 * Reads every directive line in the text; later keys win. Unknown keys and bad
 * values are ignored so that prose mentioning "@offline" cannot break a run.
 */
export function parseDirective(text: string): OfflineDirective {
  const directive: OfflineDirective = { ...NO_DIRECTIVE };
  for (const line of text.matchAll(DIRECTIVE_LINE)) {
    for (const pair of line[1].matchAll(PAIR)) {
      const key = pair[1];
      // quoted values take \n for a line break (multi-line summaries feed for_each) and \x for x
      const value = pair[2] != null ? pair[2].replace(/\\(.)/g, (_, char: string) => (char === "n" ? "\n" : char)) : pair[3];
      switch (key) {
        case "sleep": {
          const ms = Number(value);
          if (Number.isFinite(ms) && ms >= 0) directive.sleepMs = ms;
          break;
        }
        case "pause": {
          const ms = Number(value);
          if (Number.isFinite(ms) && ms >= 0) directive.pauseMs = ms;
          break;
        }
        case "fail":
          if (value === "transient" || value === "fatal" || value === "malformed" || value === "refuse") directive.fail = value;
          break;
        case "fail_attempts": {
          const n = Number(value);
          if (Number.isInteger(n) && n >= 0) directive.failAttempts = n;
          break;
        }
        case "block":
          directive.block = value === "1" || value === "true" || value === "secret" || value === "typed";
          directive.blockSecret = value === "secret";
          directive.blockTyped = value === "typed";
          break;
        case "summary":
          directive.summary = value;
          break;
        case "file":
          if (/^[A-Za-z0-9_./-]{1,200}$/.test(value) && !value.startsWith("/")) directive.file = value;
          break;
        case "decision":
          if (value === "retry" || value === "skip" || value === "abort") directive.decision = value;
          break;
      }
    }
  }
  return directive;
}

export function stripDirectives(text: string): string {
  return text
    .replace(DIRECTIVE_LINE, "")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}

const LEAD_WORDS =
  /^(?:please\s+)?(?:can you\s+|could you\s+)?(?:compare|research|evaluate|review|analy[sz]e|summari[sz]e|investigate|look into|check|explain|describe|assess|benchmark|between)\s+/i;
const TRAILING_CLAUSE = /\s+(?:for|in|on|with|regarding|about|by|from|to|so|because|when|if)\s.*$/i;

function cleanItem(raw: string): string {
  return raw
    .replace(TRAILING_CLAUSE, "")
    .replace(/^[\s"'`(]+|[\s"'`).,;:!?]+$/g, "")
    .replace(/^(?:the|a|an)\s+/i, "")
    .trim();
}

/**
 * Finds the items of a request that names several things: a comma list of at
 * least three ("research A, B and C"), or two joined by "and"/"vs" after a
 * comparing verb ("compare A and B"). Returns [] when there is no list, so a
 * plain question gets a direct answer instead of a plan.
 */
export function extractItems(request: string): string[] {
  const text = stripDirectives(request);
  for (const sentence of text.split(/(?<=[.?!])\s+|\n+/)) {
    const body = sentence.replace(/[.?!]+$/, "").trim();
    const chunks = body.split(/\s*,\s*(?:and\s+|or\s+)?|\s+(?:and|or|vs\.?|versus|&)\s+/i).filter((c) => c.trim() !== "");
    const hasComma = body.includes(",");
    const comparing = LEAD_WORDS.test(body);
    if (chunks.length < 2 || (!hasComma && !comparing) || (hasComma && chunks.length < 3 && !comparing)) continue;
    // The first chunk carries the verb ("compare Postgres"): keep as many of its
    // last words as the longest other item has.
    const others = chunks.slice(1).map(cleanItem);
    const width = Math.max(...others.map((item) => item.split(/\s+/).length));
    const head = chunks[0].replace(LEAD_WORDS, "").split(/\s+/);
    const first = cleanItem(head.slice(-width).join(" "));
    const items = [first, ...others].filter((item) => item !== "" && item.length <= 80);
    const unique = [...new Set(items)];
    if (unique.length >= 2) return unique;
  }
  return [];
}

/** A sentence derived from the input: the default summary of an offline answer. */
export function deriveSummary(input: string): string {
  const firstLine =
    stripDirectives(input)
      .split("\n")
      .find((line) => line.trim() !== "") ?? "the task";
  const short = firstLine.trim().replace(/\s+/g, " ");
  const clipped = truncateText(short, 140, { ellipsis: "…" });
  return `Offline answer to: ${clipped.replace(/[.:;]+$/, "")}.`;
}
