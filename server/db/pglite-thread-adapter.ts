// Prisma's driver adapter for the embedded database on its thread (pglite-thread.ts): each
// call of Prisma's public SqlDriverAdapter interface is forwarded to the same call of
// pglite-prisma-adapter's adapter, which runs in the thread on the PGlite there. So rows,
// column types and errors are that adapter's own; only the thread boundary is Baton's.
//
// A transaction lives in the thread, under PGlite's transaction mutex, from its start to
// its commit or rollback; this side holds its id. PGlite is one connection, so Prisma's
// transactions run one at a time, and anything else waits for the open one to end.

import { PGlite } from "@electric-sql/pglite";
import type {
  IsolationLevel,
  SqlDriverAdapter,
  SqlMigrationAwareDriverAdapterFactory,
  SqlQuery,
  SqlResultSet,
  Transaction,
  TransactionOptions,
} from "@prisma/driver-adapter-utils";
import { PrismaPGlite } from "pglite-prisma-adapter";
import { PGLITE_EXTENSIONS } from "./pglite-extensions.ts";
import type { PGliteThread } from "./pglite-thread.ts";

const ADAPTER_NAME = "baton-pglite-thread";

class ThreadQueryable {
  readonly provider = "postgres" as const;
  readonly adapterName = ADAPTER_NAME;

  constructor(
    protected readonly thread: PGliteThread,
    /** the thread's id of the transaction these queries belong to; none: autocommit */
    protected readonly transactionId?: number,
  ) {}

  async queryRaw(query: SqlQuery): Promise<SqlResultSet> {
    return (await this.thread.request("queryRaw", { query, transactionId: this.transactionId })) as SqlResultSet;
  }

  async executeRaw(query: SqlQuery): Promise<number> {
    return (await this.thread.request("executeRaw", { query, transactionId: this.transactionId })) as number;
  }
}

class ThreadTransaction extends ThreadQueryable implements Transaction {
  constructor(
    thread: PGliteThread,
    transactionId: number,
    readonly options: TransactionOptions,
  ) {
    super(thread, transactionId);
  }

  async commit(): Promise<void> {
    await this.thread.request("commit", { transactionId: this.transactionId });
  }

  async rollback(): Promise<void> {
    await this.thread.request("rollback", { transactionId: this.transactionId });
  }
}

class ThreadAdapter extends ThreadQueryable implements SqlDriverAdapter {
  async executeScript(script: string): Promise<void> {
    await this.thread.request("executeScript", { script });
  }

  async startTransaction(isolationLevel?: IsolationLevel): Promise<Transaction> {
    const { id, options } = (await this.thread.request("begin", { isolationLevel })) as { id: number; options: TransactionOptions };
    return new ThreadTransaction(this.thread, id, options);
  }

  getConnectionInfo() {
    return { supportsRelationJoins: true };
  }

  async dispose(): Promise<void> {}
}

/** Prisma's adapter factory for `thread` (migrations included). */
export function threadAdapterFactory(thread: PGliteThread): SqlMigrationAwareDriverAdapterFactory {
  return {
    provider: "postgres",
    adapterName: ADAPTER_NAME,
    connect: async () => new ThreadAdapter(thread),
    // a scratch database for the schema engine's diffs: in memory, on this thread, gone when dropped
    connectToShadowDb: async () => {
      const shadow = await PGlite.create({ extensions: PGLITE_EXTENSIONS });
      return new PrismaPGlite(shadow).connect();
    },
  };
}
