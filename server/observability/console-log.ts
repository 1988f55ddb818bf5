/**
 * Next.js (and any library) writes plain lines with `console.*`; the custom server
 * routes them into Baton's one JSON log stream instead, so an operator reads one format
 * with one set of fields (level, time, pid, the request id of the request being served).
 * Only the custom server installs this (server/index.ts): tests keep their console.
 */
import { format, stripVTControlCharacters } from "node:util";
import type { Logger } from "pino";
import { logFor } from "./log.ts";

type ConsoleMethod = "log" | "info" | "warn" | "error" | "debug" | "trace";
const LEVEL_OF: Record<ConsoleMethod, "info" | "warn" | "error" | "debug" | "trace"> = {
  log: "info",
  info: "info",
  warn: "warn",
  error: "error",
  debug: "debug",
  trace: "trace",
};

/** Replaces the console's writing methods with ones that log through `logger` (default: component "console"). */
export function routeConsoleToLog(logger: Logger = logFor({ component: "console" })): void {
  for (const method of Object.keys(LEVEL_OF) as ConsoleMethod[]) {
    const level = LEVEL_OF[method];
    console[method] = (...args: unknown[]) => {
      const err = args.find((arg) => arg instanceof Error);
      // ANSI colours (Next's own "▲ Ready" lines) mean nothing in a JSON field
      const text = stripVTControlCharacters(format(...args.filter((arg) => arg !== err)));
      if (err) logger[level]({ err }, text);
      else logger[level](text);
    };
  }
}
