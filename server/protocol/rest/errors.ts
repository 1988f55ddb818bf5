/** What every route answers on failure (server/http/errors.ts writes it, the browser reads it). */
import { z } from "zod";

/**
 * Every code a route may answer with, each with its one HTTP status: a new code
 * without a status fails typecheck (server/http/errors.ts maps them).
 */
export const ERROR_STATUS = {
  invalid_input: 400,
  unauthenticated: 401,
  unauthorized: 401,
  forbidden: 403,
  insufficient_scope: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  form_closed: 409,
  too_large: 413,
  unsupported_media_type: 415,
  plan_invalid: 422,
  form_answer_invalid: 422,
  rate_limited: 429,
  internal: 500,
  api_disabled: 503,
  /** the database cannot be reached right now: nothing was stored, try again shortly */
  unavailable: 503,
} as const satisfies Record<string, number>;

export type ErrorCode = keyof typeof ERROR_STATUS;

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === "string" && Object.hasOwn(ERROR_STATUS, value);
}

export const apiErrorSchema = z.object({
  error: z.object({
    code: z.string(),
    message: z.string(),
    details: z.unknown().optional(),
    issues: z.unknown().optional(),
    /** how many issues past the first 50 were found but not listed */
    omittedIssues: z.number().int().optional(),
  }),
});
export type ApiErrorBody = z.infer<typeof apiErrorSchema>;
