/** Adapts PGlite and pg clients to the small `SqlSession` the move and the checks use. */
import type { PGlite } from "@electric-sql/pglite";
import type pg from "pg";
import { pgliteSql, pgSql, type SqlRunner } from "../db/sql-runner.ts";
import type { SqlSession } from "./move-to-postgres.ts";

const sessionOf = (run: SqlRunner): SqlSession => ({ query: async (sql, params) => ({ rows: await run(sql, params ?? []) }) });

export function pgliteSession(pglite: Pick<PGlite, "query">): SqlSession {
  return sessionOf(pgliteSql(pglite));
}

export function pgSession(client: pg.PoolClient | pg.Client): SqlSession {
  return sessionOf(pgSql(client));
}
