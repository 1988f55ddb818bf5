/**
 * Reading request bodies with bounds, for every route: a size cap enforced while the
 * body streams in (and from Content-Length before a byte is read), UTF-8 only, JSON
 * by content type, nesting depth checked before JSON.parse, no `__proto__` keys, and
 * no NUL or unpaired surrogate in any key or string. Every refusal is a 4xx that
 * names what is wrong; nothing here waits on more than the cap allows.
 */
import type { z } from "zod";
import { isStorableText, UNSTORABLE_TEXT_MESSAGE } from "../core/text.ts";
import { DEFAULT_MAX_BODY_BYTES, MAX_UPLOAD_BYTES, MULTIPART_OVERHEAD_BYTES } from "../protocol/limits.ts";
import { peekRuntime } from "../runtime.ts";
import { HttpError, invalidInput } from "./errors.ts";

/** deepest nesting of objects and arrays a JSON body may have */
export const MAX_JSON_DEPTH = 32;

const BODYLESS = new Set(["GET", "HEAD", "OPTIONS"]);
const UPLOAD_PATH = /^\/api\/conversations\/[^/]+\/uploads\/?$/;

/** The body cap of a path: uploads keep their own, larger limit; everything else shares one. */
export function bodyLimitFor(pathname: string, maxBodyBytes: number): number {
  return UPLOAD_PATH.test(pathname) ? MAX_UPLOAD_BYTES + MULTIPART_OVERHEAD_BYTES : maxBodyBytes;
}

/** The cap of this request's path: BATON_MAX_BODY_BYTES once the app has started, else the default. */
export function requestBodyLimit(request: Request): number {
  return bodyLimitFor(new URL(request.url).pathname, peekRuntime()?.config.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES);
}

function formatBytes(bytes: number): string {
  if (bytes % (1024 * 1024) === 0) return `${bytes / 1024 / 1024} MB`;
  if (bytes % 1024 === 0) return `${bytes / 1024} KB`;
  return `${bytes} bytes`;
}

export function bodyTooLarge(limit: number): HttpError {
  return new HttpError(413, "too_large", `The request body is larger than ${formatBytes(limit)}.`);
}

/** A declared Content-Length past the cap, refused before a byte is read. */
export function assertDeclaredLength(headers: Headers, limit: number): void {
  const declared = headers.get("content-length");
  if (declared !== null && Number(declared) > limit) throw bodyTooLarge(limit);
}

/** bodies boundBody already read, by the request they came with (so a handler can read it again) */
const buffered = new WeakMap<Request, Uint8Array<ArrayBuffer>>();

/** The body's bytes, refusing as soon as more than `limit` arrived (the rest is never read). */
export async function readLimitedBytes(request: Request, limit = requestBodyLimit(request)): Promise<Uint8Array<ArrayBuffer>> {
  const already = buffered.get(request);
  if (already !== undefined) return already;
  assertDeclaredLength(request.headers, limit);
  if (request.body === null) return new Uint8Array(new ArrayBuffer(0));
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      void reader.cancel().catch(() => {});
      throw bodyTooLarge(limit);
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

export async function readLimitedText(request: Request, limit?: number): Promise<string> {
  const bytes = await readLimitedBytes(request, limit);
  try {
    return utf8.decode(bytes);
  } catch {
    throw new HttpError(400, "invalid_input", "The body must be UTF-8 text.");
  }
}

/**
 * The cap applied before a handler authenticates anyone: a declared length past it is
 * refused at once, and a body without one (chunked) is read now, up to the cap, into
 * a fresh request (readLimitedBytes also finds it through the original one). Bodies
 * with a declared length are left to stream: Node's HTTP parser never delivers more
 * than Content-Length promised, and readLimitedBytes counts anyway.
 */
export async function boundBody(request: Request): Promise<Request> {
  if (BODYLESS.has(request.method.toUpperCase()) || request.body === null) return request;
  const limit = requestBodyLimit(request);
  if (request.headers.has("content-length")) {
    assertDeclaredLength(request.headers, limit);
    return request;
  }
  const bytes = await readLimitedBytes(request, limit);
  buffered.set(request, bytes);
  return new Request(request.url, { method: request.method, headers: request.headers, body: bytes });
}

export function isJsonContentType(value: string | null): boolean {
  const type = value?.split(";")[0]?.trim().toLowerCase();
  return type === "application/json" || (type?.startsWith("application/") === true && type.endsWith("+json"));
}

/**
 * The deepest nesting in a JSON text, counted without parsing it, stopping as soon as
 * it passes the cap: JSON.parse of a megabyte of "[" takes a quarter of a second.
 */
export function jsonDepthExceeds(text: string, maxDepth: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (inString) {
      if (code === 0x5c)
        i++; // backslash: skip the escaped character
      else if (code === 0x22) inString = false;
    } else if (code === 0x22) inString = true;
    else if (code === 0x5b || code === 0x7b) {
      if (++depth > maxDepth) return true;
    } else if (code === 0x5d || code === 0x7d) depth--;
  }
  return false;
}

/**
 * NUL reaches a parsed string only through a `\u` escape (a raw NUL is invalid JSON),
 * and a surrogate through an escape or raw (never from decoded UTF-8, but a caller may
 * pass any string); a text with none of these and no `__proto__` needs no walk.
 */
const NEEDS_WALK = /\\u|__proto__|[\uD800-\uDFFF]/;

/** The first key or string no table can store (or a __proto__ key), as a path and a reason; null if none. */
function findUnstorable(root: unknown): { path: string; message: string } | null {
  // paths are only built on the way to a problem: the common walk allocates nothing per node
  type Entry = { value: unknown; parent: Entry | null; key: string };
  const pathOf = (entry: Entry | null, key?: string): string => {
    const keys = key === undefined ? [] : [key];
    for (let at = entry; at !== null && at.parent !== null; at = at.parent) keys.unshift(at.key);
    return keys.join(".");
  };
  const stack: Entry[] = [{ value: root, parent: null, key: "" }];
  while (stack.length > 0) {
    const entry = stack.pop()!;
    const value = entry.value;
    if (typeof value === "string") {
      if (!isStorableText(value)) return { path: pathOf(entry), message: UNSTORABLE_TEXT_MESSAGE };
    } else if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) {
        const item: unknown = value[i];
        if (typeof item === "object" || typeof item === "string") stack.push({ value: item, parent: entry, key: String(i) });
      }
    } else if (typeof value === "object" && value !== null) {
      for (const key of Object.keys(value)) {
        if (key === "__proto__") return { path: pathOf(entry, key), message: "the key __proto__ is not allowed" };
        if (!isStorableText(key)) return { path: pathOf(entry), message: `a key ${UNSTORABLE_TEXT_MESSAGE}` };
        stack.push({ value: (value as Record<string, unknown>)[key], parent: entry, key });
      }
    }
  }
  return null;
}

/** A parsed JSON value's keys and strings, checked without recursion; 400 names the path. */
export function assertStorableJson(root: unknown): void {
  const problem = findUnstorable(root);
  if (problem !== null) {
    const { path, message } = problem;
    throw new HttpError(400, "invalid_input", `${path || "body"}: ${message}`, undefined, [{ path, message }]);
  }
}

/** Parses a JSON text: depth first, then JSON.parse, then keys and strings. */
export function parseJsonText(text: string): unknown {
  if (jsonDepthExceeds(text, MAX_JSON_DEPTH)) {
    throw new HttpError(400, "invalid_input", `The body nests objects and arrays deeper than ${MAX_JSON_DEPTH} levels.`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new HttpError(400, "invalid_input", "Body must be JSON.");
  }
  if (NEEDS_WALK.test(text)) assertStorableJson(raw);
  return raw;
}

/**
 * Reads a JSON body within the cap (or takes an already-read one) and parses it with
 * a zod schema; 415 for another content type, 413 past the cap, 400 naming the field.
 */
export async function parseJson<T extends z.ZodType>(request: Request | string, schema: T): Promise<z.infer<T>> {
  let text: string;
  if (typeof request === "string") {
    text = request;
  } else {
    if (!isJsonContentType(request.headers.get("content-type"))) {
      throw new HttpError(415, "unsupported_media_type", "Send the body as application/json.");
    }
    text = await readLimitedText(request);
  }
  const parsed = schema.safeParse(parseJsonText(text));
  if (!parsed.success) {
    throw invalidInput(parsed.error);
  }
  return parsed.data;
}
