/** Size limits the server enforces and the browser checks before sending. */

/** the longest message a person may send, in characters */
export const MAX_MESSAGE_CHARS = 20_000;

/** the largest file a person may attach, in bytes */
export const MAX_UPLOAD_BYTES = 10 * 1024 * 1024;

/** multipart framing around an upload's file (boundaries, part headers, the name) */
export const MULTIPART_OVERHEAD_BYTES = 64 * 1024;

/** the largest request body any other route reads (BATON_MAX_BODY_BYTES overrides it) */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

/** a person's name (sign-up, profile), in UTF-16 code units as the form counts them */
export const MAX_PERSON_NAME_CHARS = 80;

/** a person's avatar URL (Better Auth's `image`) */
export const MAX_PERSON_IMAGE_CHARS = 2048;

/** a conversation's title, as a person names it */
export const MAX_CONVERSATION_TITLE_CHARS = 120;

/**
 * The newest messages a conversation's snapshot carries; the browser asks for earlier
 * ones a page at a time (a conversation of months holds tens of thousands).
 */
export const SNAPSHOT_MESSAGES = 200;

/** the most messages one page of earlier messages holds */
export const MAX_MESSAGE_PAGE = 200;

/** no step retries more than this, whatever its plan asks; the browser shows "attempt n of m" with it */
export { HARD_MAX_RETRIES } from "../core/failure-policy.ts";
