/**
 * Structured logs (pino): one JSON object a line on stdout, with the ids that say what
 * a line is about (conversationId, planId, stepId, runId) carried by child loggers.
 * Lines written while a request is served carry its `requestId` (request-id.ts).
 * `LOG_LEVEL` picks the level (default info; warn under the tests). In development on a
 * terminal the lines are pretty-printed in-process (no worker thread), never in production.
 */
import pino, { type Logger } from "pino";
import pretty from "pino-pretty";
import { currentRequestId } from "./request-id.ts";

const LEVELS = new Set(["fatal", "error", "warn", "info", "debug", "trace", "silent"]);

/**
 * Errors as pino writes them, less what a library hangs on them: pg's pool attaches the
 * whole client to a dropped connection's error (its connection settings and cancel key),
 * which is neither readable nor for the log.
 */
export function serializeError(error: unknown): unknown {
  const serialized = pino.stdSerializers.err(error as Error) as unknown;
  if (!serialized || typeof serialized !== "object") return serialized;
  const { client: _client, ...rest } = serialized as Record<string, unknown>;
  if (!(globalThis as StackRule)[WITHOUT_STACK]?.(error)) return rest;
  delete rest.stack;
  // better-auth's errors carry their cause's stack again in their body
  for (const [key, value] of Object.entries(rest)) {
    if (!value || typeof value !== "object" || !("stack" in value)) continue;
    const { stack: _stack, ...withoutIt } = value as Record<string, unknown>;
    rest[key] = withoutIt;
  }
  return rest;
}

/**
 * On globalThis, not in a module variable: Next bundles its route handlers with their own
 * copy of this module, and their lines (better-auth's, a route's) must follow the rule too.
 */
const WITHOUT_STACK = Symbol.for("baton.log.withoutStack");
type StackRule = { [WITHOUT_STACK]?: (error: unknown) => boolean };

/**
 * Errors that are logged without their stack: those of an outage (the database went
 * away), where every pool, listener and request says the same thing at once and a stack
 * says nothing about where the fault is. Set where the server is wired (serve.ts), since
 * what such an error looks like is the database layer's to tell.
 */
export function logWithoutStack(predicate: (error: unknown) => boolean): void {
  (globalThis as StackRule)[WITHOUT_STACK] = predicate;
}

/** The level from `LOG_LEVEL`; an unknown value is refused by name rather than ignored. */
export function logLevelFrom(env: Record<string, string | undefined>): string {
  const given = env.LOG_LEVEL?.trim().toLowerCase();
  if (given) {
    if (!LEVELS.has(given)) throw new Error(`LOG_LEVEL: "${env.LOG_LEVEL}" is not one of ${[...LEVELS].join(", ")}`);
    return given;
  }
  return env.VITEST ? "warn" : "info";
}

function createLogger(): Logger {
  const options = {
    level: logLevelFrom(process.env),
    base: { pid: process.pid },
    serializers: { err: serializeError },
    // every line written while a request is served carries its id (request-id.ts)
    // (a request's own child logger, pino-http's, has it among its bindings already)
    mixin: (_object: object, _level: number, logger: Logger) => {
      const requestId = currentRequestId();
      return requestId && !("requestId" in logger.bindings()) ? { requestId } : {};
    },
  };
  const prettyOutput = process.env.NODE_ENV !== "production" && process.stdout.isTTY === true && !process.env.VITEST;
  return prettyOutput ? pino(options, pretty({ colorize: true, translateTime: "SYS:HH:MM:ss.l", ignore: "pid,hostname" })) : pino(options);
}

/** The process's logger. */
export const log: Logger = createLogger();

/** The ids a line can be about; the unset ones are left out. */
export interface LogIds {
  conversationId?: string | null;
  planId?: string | null;
  stepId?: string | null;
  runId?: string | null;
}

/** A child logger whose every line carries `ids` (and `component` when given). */
export function logFor(ids: LogIds & { component?: string }, parent: Logger = log): Logger {
  const bindings: Record<string, string> = {};
  for (const [key, value] of Object.entries(ids)) if (typeof value === "string") bindings[key] = value;
  return parent.child(bindings);
}

/** A console-shaped face on a logger (`warn("[sweep]", error)`), for code written against Console. */
export function consoleLike(logger: Logger): Pick<Console, "info" | "warn" | "error"> {
  const at =
    (level: "info" | "warn" | "error") =>
    (...args: unknown[]) => {
      const err = args.find((arg) => arg instanceof Error);
      const text = args
        .filter((arg) => arg !== err)
        .map((arg) => (typeof arg === "string" ? arg : JSON.stringify(arg)))
        .join(" ");
      if (err) logger[level]({ err }, text);
      else logger[level](text);
    };
  return { info: at("info"), warn: at("warn"), error: at("error") };
}
