/**
 * The set-up the multi-process tests share: a fresh PostgreSQL database seeded with the
 * offline model, and the child processes a test starts, killed (and the database dropped)
 * after the file's tests.
 */
import { afterAll, beforeAll } from "vitest";
import { createTestDatabase, postgresAvailable, type TestDatabase } from "../db/testing/test-database.ts";
import { seedWorkspace } from "../services/seed.ts";
import type { ExecutorProcess } from "../executor/testing/process-handle.ts";

export interface PostgresProcesses {
  /** set once `beforeAll` ran */
  readonly db: TestDatabase;
  /** push every process the test starts: each is killed afterwards */
  readonly processes: ExecutorProcess[];
}

export function postgresWithProcesses(): PostgresProcesses {
  let db: TestDatabase | undefined;
  const processes: ExecutorProcess[] = [];
  beforeAll(async () => {
    if (!(await postgresAvailable())) throw new Error("PostgreSQL at 127.0.0.1:5432 is required for this test");
    db = await createTestDatabase({ kind: "postgres" });
    await seedWorkspace(db.prisma, { defaultModel: "offline", demoConversation: false });
  });
  afterAll(async () => {
    for (const child of processes) await child.kill();
    await db?.close();
  });
  return {
    get db() {
      if (!db) throw new Error("the test database is set up in beforeAll");
      return db;
    },
    processes,
  };
}
