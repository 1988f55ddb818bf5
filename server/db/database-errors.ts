/**
 * What a database error means, read from its SQLSTATE (never from its message). A
 * refused write — the statement reached the database and it said no: bad data (class
 * 22), a constraint (23), a program limit (54)… — fails the same way every time it is
 * tried again, so whoever wrote must give up and record that. A transient error — the
 * connection went (08), the server is shutting down or starting (57P), out of resources
 * (53), a serialization failure or deadlock (40) — may pass if tried again.
 */
import { isDriverAdapterError } from "@prisma/driver-adapter-utils";
import { Prisma } from "../generated/prisma/client.ts";

const SQLSTATE = /^[0-9A-Z]{5}$/;
/** SQLSTATE classes (first two characters) of errors that may pass on their own */
const TRANSIENT_CLASSES = new Set(["08", "40", "53", "57", "58"]);

export interface DatabaseErrorInfo {
  sqlState: string;
  /** the database's own message, as it gave it (it may quote the refused value) */
  message: string;
}

/**
 * The SQLSTATE and message of a database error: from PostgreSQL's driver (`pg`, PGlite),
 * from a Prisma driver adapter's error, or from a Prisma raw query failure (P2010) that
 * carries one. Null for anything else (a timeout, a bug, a network error with no reply).
 */
export function databaseErrorInfo(error: unknown): DatabaseErrorInfo | null {
  if (error instanceof Prisma.PrismaClientKnownRequestError) {
    const adapterError = (error.meta as { driverAdapterError?: unknown } | undefined)?.driverAdapterError;
    return adapterError === undefined ? null : databaseErrorInfo(adapterError);
  }
  if (isDriverAdapterError(error)) {
    const cause = error.cause as { kind?: unknown; originalCode?: unknown; originalMessage?: unknown; code?: unknown; message?: unknown };
    const sqlState = typeof cause.originalCode === "string" ? cause.originalCode : cause.kind === "postgres" ? cause.code : undefined;
    if (typeof sqlState !== "string" || !SQLSTATE.test(sqlState)) return null;
    const message =
      typeof cause.originalMessage === "string" ? cause.originalMessage : typeof cause.message === "string" ? cause.message : "";
    return { sqlState, message };
  }
  // pg's and PGlite's DatabaseError: a five-character code beside the server's severity
  if (error instanceof Error && "severity" in error && "code" in error) {
    const code = (error as { code: unknown }).code;
    if (typeof code === "string" && SQLSTATE.test(code)) return { sqlState: code, message: error.message };
  }
  return null;
}

/**
 * Whether the database rolled the transaction back to resolve a conflict with another
 * (class 40: a deadlock, 40P01, or a serialization failure, 40001). Nothing of it was
 * written, and PostgreSQL's own advice is to run it again: the other transaction won.
 */
export function isRolledBackForConflict(error: unknown): boolean {
  return databaseErrorInfo(error)?.sqlState.startsWith("40") ?? false;
}

/**
 * Whether the error may pass if the same work is tried again later: the connection went,
 * the server is starting or stopping, it ran out of resources, or it rolled back a conflict.
 */
export function isTransientDatabaseError(error: unknown): boolean {
  const info = databaseErrorInfo(error);
  return info !== null && TRANSIENT_CLASSES.has(info.sqlState.slice(0, 2));
}

/** Whether the database refused the statement for what it was, so trying again cannot help. */
export function isRefusedWrite(error: unknown): boolean {
  const info = databaseErrorInfo(error);
  return info !== null && !TRANSIENT_CLASSES.has(info.sqlState.slice(0, 2));
}

/**
 * SQLSTATEs Baton's own SQL functions raise (prisma/migrations/*_database_functions).
 * Class `ZB`: classes starting with I–Z are left to implementations, so no PostgreSQL
 * error shares them; the subclass echoes the HTTP status a caller would answer with.
 */
export const BATON_SQLSTATE = {
  /** an optimistic unit's expectation no longer held; nothing was written */
  writeConflict: "ZB409",
  /** a row the statement needs (a new plan's conversation) does not exist */
  rowNotFound: "ZB404",
} as const;

/**
 * An optimistic unit's expectation no longer held: `baton_write_units` found a plan's
 * version or a run's status changed and wrote nothing (units.ts tries again, locked).
 */
export function isWriteConflict(error: unknown): boolean {
  return databaseErrorInfo(error)?.sqlState === BATON_SQLSTATE.writeConflict;
}

/** `baton_write_units` was asked to insert a plan into a conversation that does not exist. */
export function isRowNotFound(error: unknown): boolean {
  return databaseErrorInfo(error)?.sqlState === BATON_SQLSTATE.rowNotFound;
}

/** Prisma's codes for a database it cannot reach: not reachable, timed out, closed the connection */
const PRISMA_UNREACHABLE = new Set(["P1001", "P1002", "P1017"]);
/** Node's codes for a connection refused, reset, timed out or broken on the way */
const SOCKET_UNREACHABLE = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "EHOSTUNREACH", "ENETUNREACH"]);

/**
 * Whether the error, or one it was caused by (better-auth and others wrap the database's
 * error), says the database could not be reached or dropped the connection: the request
 * may succeed in a moment, and nothing of it was stored. Not a refused statement, not a
 * conflict (class 40), which the caller must handle itself.
 */
export function isDatabaseUnreachable(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    if (current instanceof Prisma.PrismaClientKnownRequestError && PRISMA_UNREACHABLE.has(current.code)) return true;
    const sqlState = databaseErrorInfo(current)?.sqlState;
    if (sqlState && (sqlState.startsWith("08") || sqlState.startsWith("57P"))) return true;
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string" && SOCKET_UNREACHABLE.has(code)) return true;
    current = current.cause;
  }
  return false;
}
