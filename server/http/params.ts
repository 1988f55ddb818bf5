/** Integers from a URL (path segments, query strings), bounded by the column they are compared with. */
import { MAX_INT32 } from "../core/text.ts";
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
