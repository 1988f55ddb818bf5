/**
 * Health for load balancers and orchestrators: `/healthz` says the process is alive;
 * `/readyz` says it should get traffic — the database answers, every migration this
 * version ships is applied, and the process is not draining for shutdown. A newer
 * schema than this version knows (a rolling upgrade in progress) is still ready.
 * The answers name checks and states only, nothing about the workspace.
 */
import type { PrismaClient } from "../generated/prisma/client.ts";
import { readMigrationsFolder } from "../db/schema-engine.ts";

export interface ReadinessReport {
  ready: boolean;
  checks: { database: "ok" | "unreachable"; migrations: "ok" | "pending" | "unknown"; draining: boolean };
}

const DATABASE_TIMEOUT_MS = 2_000;

export async function createHealth(input: { prisma: PrismaClient; migrationsDir: string; isDraining: () => boolean }) {
  const shipped = (await readMigrationsFolder(input.migrationsDir)).migrations.map((migration) => migration.name);
  return {
    async readiness(): Promise<ReadinessReport> {
      let database: ReadinessReport["checks"]["database"] = "ok";
      let migrations: ReadinessReport["checks"]["migrations"] = "unknown";
      try {
        const rows = await withTimeout(
          input.prisma.$queryRawUnsafe<{ migration_name: string }[]>(
            `SELECT migration_name FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`,
          ),
          DATABASE_TIMEOUT_MS,
        );
        const applied = new Set(rows.map((row) => row.migration_name));
        migrations = shipped.every((name) => applied.has(name)) ? "ok" : "pending";
      } catch {
        database = "unreachable";
      }
      const draining = input.isDraining();
      return { ready: database === "ok" && migrations === "ok" && !draining, checks: { database, migrations, draining } };
    },
  };
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
