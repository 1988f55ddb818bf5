/** Ids and integers from a URL (path segments, query strings), bounded by the column they are compared with. */
import { isStorableText, MAX_INT32 } from "../core/text.ts";
import { HttpError } from "./errors.ts";

/**
 * A decimal integer within [min, max] (max defaults to an `Int` column's), else 400
 * naming the parameter. Only digits are accepted: "1e3", "0x10" and " 7" are not indexes.
 */
export function intParam(value: string | null, input: { name: string; min: number; max?: number; fallback?: number }): number {
  const max = input.max ?? MAX_INT32;
  if (value === null && input.fallback !== undefined) return input.fallback;
  const number = value !== null && /^-?\d{1,10}$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isInteger(number) || number < input.min || number > max) {
    throw new HttpError(400, "invalid_input", `${input.name}: must be an integer from ${input.min} to ${max}`);
  }
  return number;
}

/** the longest id a route looks up (ids are cuids or UUIDs) */
const MAX_ID_LENGTH = 128;

const storableId = (value: unknown): value is string => typeof value === "string" && isStorableText(value) && value.length <= MAX_ID_LENGTH;

/** `value` if it could be an id (see assertIdParams), else null. */
export const plausibleId = (value: unknown): string | null => (storableId(value) ? value : null);

/**
 * An id from the path: one the database could not even compare (NUL, an unpaired
 * surrogate) or longer than any id is simply not found, like any other unknown id.
 */
export function assertIdParams(params: Record<string, unknown>): void {
  for (const [name, value] of Object.entries(params)) {
    const values = Array.isArray(value) ? value : [value];
    for (const item of values) {
      if (typeof item === "string" && !storableId(item)) {
        throw new HttpError(404, "not_found", `${name}: no such ${name.replace(/Id$|Index$/, "")}`);
      }
    }
  }
}
