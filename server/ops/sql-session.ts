/** Adapts PGlite and pg clients to the small `SqlSession` the move and the checks use. */
import type { PGlite } from "@electric-sql/pglite";
import type pg from "pg";
import type { SqlSession } from "./move-to-postgres.ts";

export function pgliteSession(pglite: Pick<PGlite, "query">): SqlSession {
  return { query: async <Row>(sql: string, params?: unknown[]) => ({ rows: (await pglite.query<Row>(sql, params)).rows }) };
}

export function pgSession(client: pg.PoolClient | pg.Client): SqlSession {
  return { query: async <Row>(sql: string, params?: unknown[]) => ({ rows: (await client.query(sql, params)).rows as Row[] }) };
}
