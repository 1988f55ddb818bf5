/**
 * `Idempotency-Key` on plan submissions: a client that retries a submission (a timeout,
 * a dropped connection) with the same key gets the plan it already made, not a second
 * one. The plan's id is derived from the key, the API user and the conversation, so the
 * database's primary key is what makes it exactly once, also between processes. The
 * plan keeps a hash of the body, so a key reused for another plan is refused (409).
 */
import { createHash } from "node:crypto";
import { databaseErrorInfo } from "../db/database-errors.ts";
import { invalidInput } from "../protocol/errors.ts";

export const IDEMPOTENCY_HEADER = "idempotency-key";
/** Keys are what clients make: UUIDs, hashes, "nightly-2026-12-06". */
const KEY = /^[\x21-\x7e]{1,255}$/;

/** The key a request carries, or null; a malformed one is refused with the rule. */
export function readIdempotencyKey(request: Request): string | null {
  const key = request.headers.get(IDEMPOTENCY_HEADER);
  if (key === null) return null;
  if (!KEY.test(key)) throw invalidInput("Idempotency-Key: 1 to 255 visible ASCII characters, no spaces");
  return key;
}

/** A UUID (version 8, name-based) for the plan a key stands for: the same inputs, the same id. */
export function idempotentPlanId(input: { userId: string; conversationId: string; key: string }): string {
  const hex = createHash("sha256")
    .update(JSON.stringify(["plan", input.userId, input.conversationId, input.key]))
    .digest("hex");
  const variant = ((parseInt(hex[16], 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** JSON with every object's keys in order: the same body however a client's serializer ordered it. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, field]) => field !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, field]) => `${JSON.stringify(key)}:${canonicalJson(field)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/**
 * What a submission asked for, as a hash stored with the plan its key made: the same key
 * sent again is the same request only if this matches (a retry), not just the title.
 */
export function submissionHash(body: unknown): string {
  return createHash("sha256").update(canonicalJson(body)).digest("hex");
}

/** A database's "this key exists" (SQLSTATE 23505), however the driver or Prisma wrapped it. */
export function isUniqueViolation(error: unknown): boolean {
  return databaseErrorInfo(error)?.sqlState === "23505";
}
