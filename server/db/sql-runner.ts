/**
 * One SQL statement with positional parameters ($1, $2…), resolving to its rows. The hot
 * path's statements (a unit's write, its optimistic read) go through the database
 * driver's own query — PGlite's, or the pg pool's — instead of Prisma's raw query, which
 * adds its request pipeline to every call: about 0.25 ms on the embedded database and
 * 0.13 ms on PostgreSQL measured alone, 1–2 ms per statement inside a busy server. Inside
 * a Prisma transaction the statement is that transaction's (`prismaSql(tx)`).
 */
import type { Prisma } from "../generated/prisma/client.ts";
import type { EmbeddedPGlite } from "./pglite-thread.ts";
import type pg from "pg";

export type SqlRunner = <T>(text: string, params: unknown[]) => Promise<T[]>;

export function prismaSql(client: Pick<Prisma.TransactionClient, "$queryRawUnsafe">): SqlRunner {
  return <T>(text: string, params: unknown[]) => client.$queryRawUnsafe<T[]>(text, ...params);
}

/** PGlite's own query: the same single connection Prisma's adapter uses, behind the same mutex. */
export function pgliteSql(pglite: Pick<EmbeddedPGlite, "query">): SqlRunner {
  return async <T>(text: string, params: unknown[]) => (await pglite.query<T>(text, params)).rows;
}

/** A pooled connection for the one statement (autocommit), as Prisma's adapter would check out. */
export function poolSql(pool: pg.Pool): SqlRunner {
  return async <T>(text: string, params: unknown[]) => (await pool.query(text, params)).rows as T[];
}
