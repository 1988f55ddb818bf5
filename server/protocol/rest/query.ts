/** Schemas for values in a query string, which arrive as text from a browser's URL and as numbers from the typed client. */
import { z } from "zod";

/** An integer in a query string, digits only ("1e3" and " 7" are not integers), or a number from the typed client. */
export function queryInt(min: number, max: number) {
  const message = `must be an integer from ${min} to ${max}`;
  return z
    .union(
      [
        z.number(),
        z
          .string()
          .regex(/^-?\d{1,10}$/, message)
          .transform(Number),
      ],
      { error: message },
    )
    .pipe(z.number().int(message).min(min, message).max(max, message));
}
