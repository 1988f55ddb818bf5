/**
 * Moving an embedded workspace to PostgreSQL: every row of every Baton table, with its
 * ids, `seq` numbers and bytes as they are, into an empty PostgreSQL database that has
 * Baton's schema (the caller opens it through `openDatabase`, which applies the
 * migrations). Tables are copied parents first (foreign keys), in one transaction on
 * the target, and the copy is committed only when every table's row count matches.
 *
 * Rows travel as JSON (`row_to_json` out, `json_populate_recordset` in), which keeps
 * PostgreSQL's own types — arrays, enums, jsonb, timestamps, bytea — exact on both sides.
 */

/** What both PGlite and a pg client can do for the copy. */
export interface SqlSession {
  query<Row>(sql: string, params?: unknown[]): Promise<{ rows: Row[] }>;
}

export class MoveError extends Error {
  override name = "MoveError";
}

export interface MoveReport {
  tables: { table: string; rows: number }[];
  totalRows: number;
}

const BATCH_ROWS = 500;
const IGNORED_TABLES = new Set(["_prisma_migrations", "socket_io_attachments"]);

/**
 * Copies `source` into `target`. `target` must hold Baton's schema at the same
 * migration as `source` and no rows; throws MoveError naming what is wrong otherwise.
 */
export async function copyWorkspace(input: {
  source: SqlSession;
  target: SqlSession;
  onTable?: (table: string, rows: number) => void;
}): Promise<MoveReport> {
  const { source, target } = input;
  const [sourceMigrations, targetMigrations] = await Promise.all([migrationsOf(source), migrationsOf(target)]);
  if (sourceMigrations.join() !== targetMigrations.join()) {
    throw new MoveError(
      `the embedded database and PostgreSQL are at different migrations (embedded: ${sourceMigrations.at(-1) ?? "none"}, PostgreSQL: ${targetMigrations.at(-1) ?? "none"}); start Baton once on each, or run npm run db:migrate, then try again`,
    );
  }
  const tables = await tablesOf(source);
  const targetTables = new Set(await tablesOf(target));
  const missing = tables.filter((table) => !targetTables.has(table));
  if (missing.length > 0) throw new MoveError(`PostgreSQL lacks the tables ${missing.join(", ")}`);
  for (const table of targetTables) {
    const rows = await countRows(target, table);
    if (rows > 0) throw new MoveError(`PostgreSQL is not empty: table "${table}" has ${rows} rows; move into an empty database`);
  }
  const order = await parentsFirst(target, tables);

  await target.query("BEGIN");
  try {
    const report: MoveReport = { tables: [], totalRows: 0 };
    for (const table of order) {
      const rows = await copyTable(source, target, table);
      report.tables.push({ table, rows });
      report.totalRows += rows;
      input.onTable?.(table, rows);
    }
    await resetSequences(target, order);
    for (const { table, rows } of report.tables) {
      const [inSource, inTarget] = await Promise.all([countRows(source, table), countRows(target, table)]);
      if (inSource !== rows || inTarget !== rows) {
        throw new MoveError(`table "${table}": ${inSource} rows in the embedded database, ${inTarget} copied; nothing was committed`);
      }
    }
    await target.query("COMMIT");
    return report;
  } catch (error) {
    await target.query("ROLLBACK").catch(() => {});
    throw error;
  }
}

async function migrationsOf(session: SqlSession): Promise<string[]> {
  const { rows } = await session.query<{ migration_name: string }>(
    `SELECT migration_name FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL ORDER BY migration_name`,
  );
  return rows.map((row) => row.migration_name);
}

async function tablesOf(session: SqlSession): Promise<string[]> {
  const { rows } = await session.query<{ table_name: string }>(
    `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY table_name`,
  );
  return rows.map((row) => row.table_name).filter((table) => !IGNORED_TABLES.has(table));
}

async function countRows(session: SqlSession, table: string): Promise<number> {
  const { rows } = await session.query<{ n: string | number }>(`SELECT count(*)::text AS n FROM ${quote(table)}`);
  return Number(rows[0]?.n ?? 0);
}

/** Tables ordered so that every table comes after the tables its foreign keys point at. */
async function parentsFirst(session: SqlSession, tables: string[]): Promise<string[]> {
  const { rows } = await session.query<{ child: string; parent: string }>(
    `SELECT c.relname AS child, p.relname AS parent
       FROM pg_constraint k
       JOIN pg_class c ON c.oid = k.conrelid
       JOIN pg_class p ON p.oid = k.confrelid
       JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE k.contype = 'f' AND n.nspname = 'public'`,
  );
  const parents = new Map<string, Set<string>>(tables.map((table) => [table, new Set<string>()]));
  for (const { child, parent } of rows) {
    if (child !== parent && parents.has(child) && parents.has(parent)) parents.get(child)!.add(parent);
  }
  const ordered: string[] = [];
  const placed = new Set<string>();
  while (ordered.length < tables.length) {
    const next = tables.filter((table) => !placed.has(table) && [...parents.get(table)!].every((parent) => placed.has(parent)));
    if (next.length === 0) {
      const left = tables.filter((table) => !placed.has(table));
      throw new MoveError(`foreign keys form a cycle between ${left.join(", ")}; cannot order the copy`);
    }
    for (const table of next) {
      ordered.push(table);
      placed.add(table);
    }
  }
  return ordered;
}

async function copyTable(source: SqlSession, target: SqlSession, table: string): Promise<number> {
  const columns = await writableColumns(target, table);
  const key = await orderingColumns(source, table);
  const columnList = columns.map(quote).join(", ");
  let copied = 0;
  for (;;) {
    const { rows } = await source.query<{ row: string }>(
      `SELECT row_to_json(t)::text AS row FROM ${quote(table)} t ORDER BY ${key.map(quote).join(", ")} LIMIT ${BATCH_ROWS} OFFSET ${copied}`,
    );
    if (rows.length === 0) return copied;
    const batch = `[${rows.map((row) => row.row).join(",")}]`;
    await target.query(
      `INSERT INTO ${quote(table)} (${columnList}) SELECT ${columnList} FROM json_populate_recordset(NULL::${quote(table)}, $1::json)`,
      [batch],
    );
    copied += rows.length;
    if (rows.length < BATCH_ROWS) return copied;
  }
}

/** Columns a row can be inserted with (generated columns are computed by the target). */
async function writableColumns(session: SqlSession, table: string): Promise<string[]> {
  const { rows } = await session.query<{ column_name: string }>(
    `SELECT column_name FROM information_schema.columns
      WHERE table_schema = 'public' AND table_name = $1 AND is_generated = 'NEVER'
      ORDER BY ordinal_position`,
    [table],
  );
  return rows.map((row) => row.column_name);
}

/** The primary key (or every column) so that paging through a table is stable. */
async function orderingColumns(session: SqlSession, table: string): Promise<string[]> {
  const { rows } = await session.query<{ attname: string }>(
    `SELECT a.attname FROM pg_index i
       JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey)
      WHERE i.indrelid = $1::regclass AND i.indisprimary
      ORDER BY array_position(i.indkey, a.attnum)`,
    [quote(table)],
  );
  if (rows.length > 0) return rows.map((row) => row.attname);
  return writableColumns(session, table);
}

/** Moves every serial/identity sequence past the ids that were copied in. */
async function resetSequences(session: SqlSession, tables: string[]): Promise<void> {
  for (const table of tables) {
    const { rows } = await session.query<{ column_name: string; sequence: string | null }>(
      `SELECT column_name, pg_get_serial_sequence($1, column_name) AS sequence
         FROM information_schema.columns WHERE table_schema = 'public' AND table_name = $2`,
      [quote(table), table],
    );
    for (const { column_name, sequence } of rows) {
      if (!sequence) continue;
      await session.query(`SELECT setval($1::regclass, COALESCE((SELECT max(${quote(column_name)}) FROM ${quote(table)}), 0) + 1, false)`, [
        sequence,
      ]);
    }
  }
}

function quote(identifier: string): string {
  return `"${identifier.replace(/"/g, '""')}"`;
}
