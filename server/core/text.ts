/**
 * Bounds every text and integer from outside must respect before it reaches the
 * database: PostgreSQL refuses NUL in text and jsonb, an unpaired UTF-16 surrogate
 * has no UTF-8 encoding, and an `Int` column holds 32 bits. Input a person sends is
 * refused (the zod schemas below); text from agents, tools, uploads and webhooks is
 * repaired instead (`toStorableText`, `toStorableJson`), and every cut goes through
 * `truncateText`, which never splits a character (nor, where it can tell, a
 * user-perceived one). Pure.
 */
import { z } from "zod";

/** the largest value a PostgreSQL `integer` (Prisma `Int`) column holds */
export const MAX_INT32 = 2_147_483_647;

/** an unpaired high surrogate, or a low surrogate without its high half (UTF-16 code units) */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** What a text field may hold: no NUL, no unpaired surrogate. */
export function isStorableText(value: string): boolean {
  return !value.includes("\u0000") && !LONE_SURROGATE.test(value);
}

export const UNSTORABLE_TEXT_MESSAGE = "must not contain NUL characters or unpaired UTF-16 surrogates";

/** A string schema that refuses what the database cannot store; chain .trim(), .max() as usual. */
export const storableText = () => z.string().refine(isStorableText, UNSTORABLE_TEXT_MESSAGE);

/** An integer schema bounded by an `Int` column; chain .min() as usual. */
export const int32 = () => z.int().max(MAX_INT32, `must be at most ${MAX_INT32}`);

/**
 * Bidirectional embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069): in a
 * name they reorder what is shown (`invoice\u202Efdp.exe` shows as `invoiceexe.pdf`).
 * Right-to-left text needs none of them to show right.
 */
const BIDI_CONTROLS = /[\u202A-\u202E\u2066-\u2069]/g;

/** True when the text holds a bidirectional embedding, override or isolate. */
export function hasBidiControls(text: string): boolean {
  return text.search(BIDI_CONTROLS) !== -1;
}

export const BIDI_CONTROLS_MESSAGE = "must not contain bidirectional override, embedding or isolate characters";

/** The text without bidirectional embeddings, overrides and isolates: for names shown to others (file names). */
export function withoutBidiControls(text: string): string {
  return text.replace(BIDI_CONTROLS, "");
}

/** what takes the place of a character that cannot be stored */
export const REPLACEMENT_CHARACTER = "\uFFFD";

// a high surrogate not followed by a low one, a low surrogate not preceded by a high one
const LONE_SURROGATES = new RegExp(LONE_SURROGATE.source, "g");

/** The text with U+0000 and every lone surrogate replaced by U+FFFD; the same string when clean. */
export function toStorableText(text: string): string {
  return isStorableText(text) ? text : text.replaceAll("\u0000", REPLACEMENT_CHARACTER).replace(LONE_SURROGATES, REPLACEMENT_CHARACTER);
}

/**
 * A JSON-like value (tool arguments, a webhook payload) with every string in it, keys
 * included, made storable. Values that are not plain data are returned as they are.
 */
export function toStorableJson<T>(value: T): T {
  return cleanValue(value, 0) as T;
}

/** deeper than this a payload is not walked further (a JSON body this deep is refused upstream) */
const MAX_JSON_DEPTH = 200;

function cleanValue(value: unknown, depth: number): unknown {
  if (typeof value === "string") return toStorableText(value);
  if (value === null || typeof value !== "object" || depth > MAX_JSON_DEPTH) return value;
  if (Array.isArray(value)) return value.map((item) => cleanValue(item, depth + 1));
  const prototype = Object.getPrototypeOf(value) as unknown;
  if (prototype !== Object.prototype && prototype !== null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) out[toStorableText(key)] = cleanValue(item, depth + 1);
  return out;
}

export interface TruncateOptions {
  /** appended when the text was cut; counted within the limit (default: nothing) */
  ellipsis?: string;
}

/**
 * The text made storable and, when longer than `maxLength` UTF-16 code units (what
 * `.length`, column limits and the existing bounds count), cut to fit with the
 * ellipsis. The cut falls on a grapheme boundary (an emoji sequence or a letter with
 * its combining marks is kept whole or left out whole) and at worst on a code point
 * boundary: never inside a surrogate pair. A clean text that fits comes back as it is.
 */
export function truncateText(text: string, maxLength: number, options: TruncateOptions = {}): string {
  if (!Number.isInteger(maxLength) || maxLength < 0)
    throw new RangeError(`truncateText: maxLength must be a whole number ≥ 0, got ${maxLength}`);
  const clean = toStorableText(text);
  if (clean.length <= maxLength) return clean;
  const ellipsis = toStorableText(options.ellipsis ?? "");
  if (ellipsis.length > maxLength) return clean.slice(0, codePointBoundary(clean, maxLength));
  return clean.slice(0, graphemeBoundary(clean, maxLength - ellipsis.length)) + ellipsis;
}

/** how far back a cut looks for a grapheme boundary before settling for a code point one */
const GRAPHEME_WINDOW = 64;
let segmenter: Intl.Segmenter | null | undefined;

/** The last grapheme boundary at or before `limit`: segments only a window before the cut. */
function graphemeBoundary(text: string, limit: number): number {
  const cut = codePointBoundary(text, limit);
  if (segmenter === undefined)
    segmenter = typeof Intl.Segmenter === "function" ? new Intl.Segmenter(undefined, { granularity: "grapheme" }) : null;
  if (!segmenter || cut === 0) return cut;
  const start = codePointBoundary(text, Math.max(0, cut - GRAPHEME_WINDOW));
  // one code unit past the cut so the segment that straddles it shows where it begins
  const window = text.slice(start, Math.min(text.length, cut + 2));
  let best = start;
  for (const { index } of segmenter.segment(window)) {
    if (start + index > cut) break;
    best = start + index;
  }
  // a segment running from before the window to past the cut (a long run of marks): the window start is no boundary we know of
  return best === start && start > 0 ? cut : best;
}

/** `limit`, or one less when that would split a surrogate pair. */
function codePointBoundary(text: string, limit: number): number {
  if (limit <= 0 || limit >= text.length) return Math.max(0, Math.min(limit, text.length));
  const before = text.charCodeAt(limit - 1);
  const after = text.charCodeAt(limit);
  return before >= 0xd800 && before <= 0xdbff && after >= 0xdc00 && after <= 0xdfff ? limit - 1 : limit;
}
