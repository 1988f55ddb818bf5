/**
 * The process-wide runtime, shared between the custom server and Next's route
 * handlers (which Next bundles separately, so a module-level variable would not be
 * shared: globalThis is).
 */
import type { PrismaClient } from "./generated/prisma/client.ts";
import type { Config } from "./config/config.ts";
import type { Application } from "./services/application.ts";
import type { ProviderCircuits } from "./agents/circuit-breaker.ts";
import type { SqlRunner } from "./db/sql-runner.ts";

export interface Runtime {
  config: Config;
  prisma: PrismaClient;
  /** the database driver's own query (db/sql-runner.ts), for statements every request pays */
  sql: SqlRunner;
  /** what people and API clients ask for: the one way routes, the API and sockets reach the application */
  app: Application;
  /** the user the API token acts as */
  apiUserId: string;
  /** a conversation the API token's statement checked that user's membership of (api-v1/api-auth.ts) */
  apiMembership?: { conversationId: string; member: boolean };
  /** this process's per-model circuit breakers (null: runs go straight to the provider) */
  circuits?: ProviderCircuits | null;
}

const KEY = Symbol.for("baton.runtime");
type Holder = { [KEY]?: Runtime };

export function setRuntime(runtime: Runtime): void {
  (globalThis as Holder)[KEY] = runtime;
}

/** The runtime if the app has started (helpers that work with or without one, e.g. a default limit). */
export function peekRuntime(): Runtime | undefined {
  return (globalThis as Holder)[KEY];
}

export function getRuntime(): Runtime {
  const runtime = (globalThis as Holder)[KEY];
  if (!runtime) throw new Error("Baton's runtime is not initialised (start the app with `npm start`)");
  return runtime;
}
