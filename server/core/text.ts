/**
 * Bounds every text and integer from outside must respect before it reaches the
 * database: PostgreSQL refuses NUL in text and jsonb, an unpaired UTF-16 surrogate
 * has no UTF-8 encoding, and an `Int` column holds 32 bits.
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
