/**
 * The hot path's SQL functions (prisma/migrations/*_database_functions) name columns in
 * strings the compiler never sees, and PL/pgSQL checks a statement only when it first
 * runs. Read back from the database as it was migrated, every column a function inserts,
 * updates or reads from a row of the document must exist, every insert must write each
 * column that has neither a default nor NULL allowed, and the column lists must be the
 * ones the rows of adapters/prisma/tables.ts carry.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, postgresAvailable, type TestDatabase } from "../../db/testing/test-database.ts";
import { FINISHED_RUN_COLUMNS, MESSAGE_COLUMNS, RUN_COLUMNS, STEP_COLUMNS, STEP_EVENT_COLUMNS } from "./tables.ts";

const FUNCTIONS = ["baton_claim_runs", "baton_enter_unit", "baton_write_units"];
const NOT_ALIASES = new Set(["SET", "WHERE", "SELECT", "RETURNING", "ON", "FROM", "AS", "FOR", "ORDER", "LIMIT"]);

interface Column {
  table: string;
  column: string;
  required: boolean;
}

interface Statement {
  fn: string;
  text: string;
}

/** Each function body's statements (split on ";"), with `--` comments removed. */
function statementsOf(functions: { name: string; body: string }[]): Statement[] {
  return functions.flatMap(({ name, body }) =>
    body
      .replace(/--[^\n]*/g, "")
      .split(";")
      .map((text) => ({ fn: name, text: text.replace(/\s+/g, " ").trim() })),
  );
}

const quotedNames = (list: string) => [...list.matchAll(/"(\w+)"/g)].map((match) => match[1]);

/** INSERT INTO "T" (cols) …, or INSERT INTO "T" SELECT * (every column). */
function inserts(statements: Statement[]): { fn: string; table: string; columns: string[] | "all" }[] {
  return statements.flatMap(({ fn, text }) =>
    [...text.matchAll(/INSERT INTO "(\w+)" (?:\(([^)]*)\)|SELECT \*)/g)].map((match) => ({
      fn,
      table: match[1],
      columns: match[2] === undefined ? ("all" as const) : quotedNames(match[2]),
    })),
  );
}

/** UPDATE "T" alias SET "a" = …, "b" = … | ("a", "b") = (…): the columns assigned. */
function updates(statements: Statement[]): { fn: string; table: string; columns: string[] }[] {
  return statements.flatMap(({ fn, text }) =>
    [...text.matchAll(/UPDATE "(\w+)"(?: \w+)? SET (.*?)(?: FROM | WHERE |$)/g)].map((match) => {
      const assignments = match[2];
      const tuple = /^\(([^)]*)\) =/.exec(assignments);
      const columns = tuple ? quotedNames(tuple[1]) : [...assignments.matchAll(/(?:^|, )"(\w+)" =/g)].map((found) => found[1]);
      return { fn, table: match[1], columns };
    }),
  );
}

/** Every `alias."column"` whose alias names a table (FROM "T" alias) or a document row typed as one (NULL::"T"). */
function aliasedReferences(statements: Statement[]): { fn: string; table: string; column: string }[] {
  return statements.flatMap(({ fn, text }) => {
    const aliases = new Map<string, string>();
    for (const match of text.matchAll(/(?:FROM|UPDATE|JOIN) "(\w+)" (?:AS )?(\w+)/g)) {
      if (!NOT_ALIASES.has(match[2].toUpperCase())) aliases.set(match[2], match[1]);
    }
    for (const match of text.matchAll(/jsonb_populate_recordset\(NULL::"(\w+)", [^)]*\) (?:AS )?(\w+)/g)) aliases.set(match[2], match[1]);
    return [...text.matchAll(/\b(\w+)\."(\w+)"/g)].flatMap((match) => {
      const table = aliases.get(match[1]);
      return table ? [{ fn, table, column: match[2] }] : [];
    });
  });
}

const pgUp = await postgresAvailable();

describe.each([
  { kind: "embedded" as const, run: true },
  { kind: "postgres" as const, run: pgUp },
])("the hot path's functions against the schema on $kind", ({ kind, run }) => {
  let db: TestDatabase;
  let statements: Statement[];
  let columns: Map<string, Column[]>;

  beforeAll(async () => {
    if (!run) return;
    db = await createTestDatabase({ kind });
    const functions = await db.sql<{ name: string; body: string }>(
      `SELECT p.proname AS "name", p.prosrc AS "body" FROM pg_proc p
         JOIN pg_namespace n ON n.oid = p.pronamespace
       WHERE n.nspname = current_schema() AND p.proname LIKE 'baton\\_%' ORDER BY p.proname`,
      [],
    );
    expect(functions.map((fn) => fn.name)).toEqual(FUNCTIONS);
    statements = statementsOf(functions);
    const rows = await db.sql<Column>(
      `SELECT table_name AS "table", column_name AS "column",
              (is_nullable = 'NO' AND column_default IS NULL AND is_identity = 'NO') AS "required"
         FROM information_schema.columns WHERE table_schema = current_schema()`,
      [],
    );
    columns = new Map();
    for (const row of rows) columns.set(row.table, [...(columns.get(row.table) ?? []), row]);
  });
  afterAll(() => db?.close());

  const columnNames = (table: string) => (columns.get(table) ?? []).map((column) => column.column);
  const insertOf = (table: string) => {
    const found = inserts(statements).filter((insert) => insert.fn === "baton_write_units" && insert.table === table);
    expect(found, `one insert into ${table}`).toHaveLength(1);
    return found[0].columns;
  };

  it.runIf(run)("reads the statements it checks (the parser finds them)", () => {
    expect(inserts(statements).map((insert) => insert.table)).toEqual(
      expect.arrayContaining(["Plan", "PlanStep", "Message", "Run", "StepEvent", "ConversationEvent"]),
    );
    expect(new Set(updates(statements).map((update) => update.table))).toEqual(
      new Set(["Run", "Form", "Plan", "PlanStep", "Conversation"]),
    );
    expect(aliasedReferences(statements).length).toBeGreaterThan(100);
  });

  it.runIf(run)("names only columns the schema has", () => {
    const named = [
      ...inserts(statements).flatMap(({ fn, table, columns: list }) =>
        list === "all" ? [] : list.map((column) => ({ fn, table, column })),
      ),
      ...updates(statements).flatMap(({ fn, table, columns: list }) => list.map((column) => ({ fn, table, column }))),
      ...aliasedReferences(statements),
    ];
    const unknown = named.filter(({ table, column }) => !columnNames(table).includes(column));
    expect(unknown).toEqual([]);
  });

  it.runIf(run)("writes every column an insert requires", () => {
    const missing = inserts(statements).flatMap(({ fn, table, columns: list }) =>
      list === "all"
        ? []
        : (columns.get(table) ?? [])
            .filter((column) => column.required && !list.includes(column.column))
            .map(({ column }) => ({ fn, table, column })),
    );
    expect(missing).toEqual([]);
  });

  it.runIf(run)("writes exactly the columns of the rows the executor sends", () => {
    expect(insertOf("Message")).toEqual([...MESSAGE_COLUMNS]);
    expect(insertOf("Run")).toEqual(expect.arrayContaining([...RUN_COLUMNS, "status"]));
    expect(insertOf("Run")).toHaveLength(RUN_COLUMNS.length + 1);
    expect(insertOf("StepEvent")).toEqual([...STEP_EVENT_COLUMNS]);
    // a new plan and its steps go in whole: the row types name every column (schema-checks.ts)
    expect(insertOf("Plan")).toBe("all");
    expect(insertOf("PlanStep")).toBe("all");
    const stepUpdate = updates(statements).filter((update) => update.table === "PlanStep");
    expect(stepUpdate.map((update) => update.columns)).toEqual([[...STEP_COLUMNS]]);
    const finish = updates(statements).find((update) => update.table === "Run" && update.columns.includes("tokensIn"));
    expect(finish?.columns.toSorted()).toEqual([...FINISHED_RUN_COLUMNS, "leaseExpiresAt"].toSorted());
  });
});
