/** Typed errors with codes; routes map codes to HTTP statuses, never messages. */
export class BatonError extends Error {
  constructor(
    readonly code: "not_found" | "invalid_input" | "form_closed" | "conflict" | "forbidden" | "unauthenticated",
    message: string,
  ) {
    super(message);
  }
}

export const notFound = (what: string) => new BatonError("not_found", `${what} was not found`);
export const invalidInput = (message: string) => new BatonError("invalid_input", message);
export const conflict = (message: string) => new BatonError("conflict", message);
