/**
 * A request id on every request and on every log line written while serving it: the
 * caller's `X-Request-Id` when it is a sane token (a proxy or load balancer set it, so
 * its lines and ours join up), else a fresh one; returned in the response's
 * `X-Request-Id`. The id travels with the request's async work (AsyncLocalStorage), and
 * the logger adds it to each line (log.ts), so no code passes it by hand.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { randomUUID } from "node:crypto";

export const REQUEST_ID_HEADER = "x-request-id";
/** what an incoming id may look like: short, printable, no spaces or separators a log reader could trip on */
const WELL_FORMED_ID = /^[A-Za-z0-9._:@-]{1,128}$/;

const current = new AsyncLocalStorage<{ requestId: string }>();

/** The caller's id when well-formed, else a new one. */
export function requestIdFrom(incoming: string | string[] | undefined): string {
  return typeof incoming === "string" && WELL_FORMED_ID.test(incoming) ? incoming : randomUUID();
}

/** Runs `work` as part of the request `requestId`: log lines written meanwhile carry it. */
export function withRequestId<T>(requestId: string, work: () => T): T {
  return current.run({ requestId }, work);
}

/** The id of the request being served, if any. */
export function currentRequestId(): string | undefined {
  return current.getStore()?.requestId;
}

/**
 * Runs `work` outside any request: for lines about the process (a database outage), which
 * would otherwise carry the id of whichever request happened to open the connection or
 * trigger the reconnect.
 */
export function outsideRequest<T>(work: () => T): T {
  return current.exit(work);
}
