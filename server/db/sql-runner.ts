/**
 * One SQL statement with positional parameters ($1, $2…), resolving to its rows: each
 * driver's own query behind one signature. The executor's hot path (a unit's write, its
 * optimistic read) uses it instead of Prisma's raw query, whose request pipeline added
 * about 0.25 ms per statement on the embedded database and 0.13 ms on PostgreSQL measured
 * alone, and about 1 ms inside the busy server. Inside a Prisma transaction the statement
 * is that transaction's (`prismaSql(tx)`). The move to PostgreSQL reads and writes through
 * it too (ops/sql-session.ts).
 */
import type { Prisma } from "../generated/prisma/client.ts";

export type SqlRunner = <T>(text: string, params: unknown[]) => Promise<T[]>;

export function prismaSql(client: Pick<Prisma.TransactionClient, "$queryRawUnsafe">): SqlRunner {
  return <T>(text: string, params: unknown[]) => client.$queryRawUnsafe<T[]>(text, ...params);
}

/**
 * PGlite's own query (in this thread or on the database's thread: pglite-thread.ts): the
 * same single connection Prisma's adapter uses, behind the same mutex.
 */
export function pgliteSql(pglite: { query<T>(text: string, params: unknown[]): Promise<{ rows: T[] }> }): SqlRunner {
  return async <T>(text: string, params: unknown[]) => (await pglite.query<T>(text, params)).rows;
}

/** pg's query: on a pool, a pooled connection for the one statement (autocommit), as Prisma's adapter checks out; or one client's. */
export function pgSql(client: { query(text: string, values: unknown[]): Promise<{ rows: unknown[] }> }): SqlRunner {
  return async <T>(text: string, params: unknown[]) => (await client.query(text, params)).rows as T[];
}
