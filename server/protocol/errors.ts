/**
 * Baton's one error family: every refusal the application decides (not found, bad
 * input, a conflict, not allowed…) is a BatonError whose `code` is one of the protocol's
 * error codes (rest/errors.ts), so the HTTP answer is decided once, from the code
 * (server/http/errors.ts), never from the message.
 *
 * Recognise one with `isBatonError`, not `instanceof`: Next bundles route handlers apart
 * from the custom server, so an error thrown by the server's copy of this class is not
 * an instance of the route's copy. A marker under a registered symbol is the same in
 * every copy (the AI SDK recognises its errors the same way).
 */
import type { ErrorCode } from "./rest/errors.ts";

const MARKER = Symbol.for("baton.error");

export class BatonError<C extends ErrorCode = ErrorCode> extends Error {
  readonly [MARKER] = true;
  /** extra data the error body carries beside the message (a list of issues, say) */
  readonly details: unknown;

  constructor(
    readonly code: C,
    message: string,
    options?: { cause?: unknown; details?: unknown },
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = "BatonError";
    this.details = options?.details;
  }
}

/** Whether `error` is a BatonError from any copy of this module. */
export function isBatonError(error: unknown): error is BatonError {
  return typeof error === "object" && error !== null && (error as { [MARKER]?: unknown })[MARKER] === true;
}

/** Whether `error` is a BatonError with that code. */
export function hasErrorCode<C extends ErrorCode>(error: unknown, code: C): error is BatonError<C> {
  return isBatonError(error) && error.code === code;
}

export const notFound = (what: string) => new BatonError("not_found", `${what} was not found`);
export const invalidInput = (message: string) => new BatonError("invalid_input", message);
export const conflict = (message: string) => new BatonError("conflict", message);
export const forbidden = (message: string) => new BatonError("forbidden", message);
