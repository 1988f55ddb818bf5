/** Size limits the server enforces and the browser checks before sending. */

/** the longest message a person may send, in characters */
export const MAX_MESSAGE_CHARS = 20_000;

/** the largest file a person may attach, in bytes */
export const MAX_UPLOAD_BYTES = 10 * 1024 * 1024;
