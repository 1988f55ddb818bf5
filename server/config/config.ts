/**
 * Configuration comes from the environment, validated once at start-up: a bad
 * variable stops the server with a message that names it.
 */
import { z } from "zod";
import { DEFAULT_MAX_BODY_BYTES } from "../protocol/limits.ts";
import { PROVIDER_ENV, PROVIDER_NAMES, PROVIDERS, type ProviderEntry } from "./providers.ts";

const positiveInt = (fallback: number) => z.coerce.number().int().positive().default(fallback);

const envSchema = z.object({
  /** 0 picks a free port (tests) */
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().default("0.0.0.0"),
  /** unset: embedded PGlite in BATON_DATA_DIR; postgres://… : that PostgreSQL */
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, "must start with postgresql:// (unset it to use the embedded database)")
    .optional(),
  BATON_DATA_DIR: z.string().default("./data"),
  /** bearer token for /api/v1; unset disables the automation API */
  BATON_API_TOKEN: z.string().min(16, "must be at least 16 characters").optional(),
  /** unset: the first configured provider's default model, else the offline model */
  /** HMAC-SHA256 secret for signed webhooks (reactions) as an alternative to the bearer token */
  BATON_WEBHOOK_SECRET: z.string().min(16, "must be at least 16 characters").optional(),
  /** bearer token for /metrics (BATON_API_TOKEN works too); neither set: /metrics is off */
  BATON_METRICS_TOKEN: z.string().min(16, "must be at least 16 characters").optional(),
  BATON_DEFAULT_MODEL: z.string().optional(),
  BATON_MAX_PARALLEL: positiveInt(4),
  BATON_MAX_PLAN_STEPS: positiveInt(200),
  BATON_MAX_STEP_INPUT_CHARS: positiveInt(20_000),
  /** the largest request body a route reads, in bytes (uploads have their own limit) */
  BATON_MAX_BODY_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(1024 * 1024 * 1024)
    .default(DEFAULT_MAX_BODY_BYTES),
  BATON_MAX_RETRIES: z.coerce.number().int().min(0).max(10).default(3),
  /** how long a run's lease lasts without a heartbeat before another process may take it over */
  BATON_LEASE_MS: positiveInt(30_000),
  /** per-model concurrency, e.g. "anthropic:claude-sonnet-4-5=4,offline=64" */
  BATON_MODEL_CONCURRENCY: z.string().default(""),
  /**
   * how many reverse proxies (load balancers) in front of Baton append X-Forwarded-For
   * and set X-Forwarded-Proto: 0 (default) trusts none; true means 1
   */
  BATON_TRUST_PROXY: z
    .string()
    .regex(/^(true|false|\d{1,2})$/, "must be true, false or a number of proxies (0-99)")
    .transform((value) => (value === "true" ? 1 : value === "false" ? 0 : Number(value)))
    .default(0),
  /** Socket.IO handshakes per minute: of one signed-in user, from one address (all), from one address without a session */
  BATON_SOCKET_HANDSHAKES_PER_USER: positiveInt(20),
  BATON_SOCKET_HANDSHAKES_PER_ADDRESS: positiveInt(2_000),
  BATON_SOCKET_ANONYMOUS_HANDSHAKES_PER_ADDRESS: positiveInt(60),
  /** events one browser socket may send per second before they are refused */
  BATON_SOCKET_EVENTS_PER_SECOND: positiveInt(20),
  BATON_SEED_DEMO: z.enum(["0", "1"]).default("1"),
  /** 1: the embedded database on a thread of its own (db/pglite-thread.ts) */
  BATON_PGLITE_THREAD: z.enum(["0", "1"]).default("1"),
  /** all: pages, sockets and agent runs; web: pages and sockets only; worker: agent runs only */
  BATON_ROLE: z.enum(["all", "web", "worker"]).default("all"),
  /** most agent runs one process runs at once */
  BATON_WORKER_SLOTS: positiveInt(64),
  /** the liveness sweep's interval (claims, due retries, idle plans, expired leases) */
  BATON_SWEEP_MS: z.coerce.number().int().min(100).max(600_000).default(2_000),
  /** 0: never race a straggling step on its agent's alternate model (Agent.hedgeModel); 1: do, for agents that have one */
  BATON_HEDGING: z.enum(["0", "1"]).default("1"),
  /** on SIGTERM, how long live runs may go on before they are handed back to other processes */
  BATON_SHUTDOWN_GRACE_MS: z.coerce.number().int().min(0).max(600_000).default(10_000),
  BETTER_AUTH_SECRET: z.string().optional(),
  BETTER_AUTH_URL: z.string().optional(),
  // the model providers' variables (providers.ts): URLs must be URLs
  ...Object.fromEntries(PROVIDER_ENV.map((variable) => [variable.name, variable.url ? z.url().optional() : z.string().optional()])),
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
});

export type Env = z.infer<typeof envSchema>;

export interface Config {
  env: Env;
  port: number;
  host: string;
  databaseUrl: string | undefined;
  dataDir: string;
  apiToken: string | undefined;
  webhookSecret: string | undefined;
  defaultModel: string;
  planLimits: { maxSteps: number; maxInputChars: number; defaultMaxParallel: number; defaultMaxRetries: number };
  leaseMs: number;
  maxBodyBytes: number;
  modelConcurrency: Record<string, number>;
  role: "all" | "web" | "worker";
  workerSlots: number;
  sweepMs: number;
  /** race straggling steps on their agent's alternate model (BATON_HEDGING) */
  hedging: boolean;
  shutdownGraceMs: number;
  seedDemo: boolean;
  /** the embedded database runs on a thread of its own (db/pglite-thread.ts) */
  pgliteThread: boolean;
  /** proxies trusted to report the client's address and protocol (see http/client-address.ts) */
  trustProxy: number;
  dev: boolean;
}

export class ConfigError extends Error {
  readonly code = "config_invalid";
}

function parseModelConcurrency(value: string): Record<string, number> {
  const limits: Record<string, number> = {};
  for (const part of value
    .split(",")
    .map((p) => p.trim())
    .filter(Boolean)) {
    const at = part.lastIndexOf("=");
    const limit = Number(part.slice(at + 1));
    if (at <= 0 || !Number.isInteger(limit) || limit < 1) {
      throw new ConfigError(`BATON_MODEL_CONCURRENCY: "${part}" is not model=positive-integer`);
    }
    limits[part.slice(0, at)] = limit;
  }
  return limits;
}

/** BATON_DEFAULT_MODEL, else the default model of the first provider (providers.ts) whose key is set, else offline. */
function defaultModelFor(env: Env): string {
  if (env.BATON_DEFAULT_MODEL) return env.BATON_DEFAULT_MODEL;
  const variables: Readonly<Record<string, unknown>> = env;
  for (const name of PROVIDER_NAMES) {
    const entry: ProviderEntry = PROVIDERS[name];
    if (entry.defaultModel !== undefined && variables[entry.keyVariable]) return entry.defaultModel;
  }
  return "offline";
}

/** Validates the environment; throws ConfigError naming every bad variable. */
export function loadConfig(source: Record<string, string | undefined> = process.env): Config {
  const cleaned = Object.fromEntries(Object.entries(source).filter(([, v]) => v !== undefined && v !== ""));
  const parsed = envSchema.safeParse(cleaned);
  if (!parsed.success) {
    // name the variable, never echo its value (it may be a secret)
    const lines = parsed.error.issues.map((issue) => `  ${issue.path.join(".")}: ${issue.message}`);
    throw new ConfigError(`Invalid environment:\n${lines.join("\n")}`);
  }
  const env = parsed.data;
  const config: Config = {
    env,
    port: env.PORT,
    host: env.HOST,
    databaseUrl: env.DATABASE_URL,
    dataDir: env.BATON_DATA_DIR,
    apiToken: env.BATON_API_TOKEN,
    webhookSecret: env.BATON_WEBHOOK_SECRET,
    defaultModel: defaultModelFor(env),
    planLimits: {
      maxSteps: env.BATON_MAX_PLAN_STEPS,
      maxInputChars: env.BATON_MAX_STEP_INPUT_CHARS,
      defaultMaxParallel: env.BATON_MAX_PARALLEL,
      defaultMaxRetries: env.BATON_MAX_RETRIES,
    },
    leaseMs: env.BATON_LEASE_MS,
    maxBodyBytes: env.BATON_MAX_BODY_BYTES,
    modelConcurrency: parseModelConcurrency(env.BATON_MODEL_CONCURRENCY),
    role: env.BATON_ROLE,
    workerSlots: env.BATON_WORKER_SLOTS,
    sweepMs: env.BATON_SWEEP_MS,
    hedging: env.BATON_HEDGING === "1",
    shutdownGraceMs: env.BATON_SHUTDOWN_GRACE_MS,
    seedDemo: env.BATON_SEED_DEMO === "1",
    pgliteThread: env.BATON_PGLITE_THREAD === "1",
    trustProxy: env.BATON_TRUST_PROXY,
    dev: env.NODE_ENV !== "production",
  };
  checkRole(config);
  return config;
}

/** Settings that cannot work together, named so the server refuses to start. */
export function checkRole(config: Pick<Config, "role" | "databaseUrl">): void {
  if (config.role !== "all" && !config.databaseUrl) {
    throw new ConfigError(`BATON_ROLE: "${config.role}" needs DATABASE_URL (the embedded database serves one process, which must do both)`);
  }
}
