// The driver's own query (sql-runner.ts), which the executor's hot path uses instead of
// Prisma's raw query: it must answer exactly as Prisma's did (parsed jsonb, typed nulls,
// the database's error text), and on the embedded database's one connection it must never
// run inside a Prisma transaction that is open at the time.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, postgresAvailable, type TestDatabase } from "./testing/test-database.ts";
import { prismaSql, type SqlRunner } from "./sql-runner.ts";

const pgUp = await postgresAvailable();

describe.each([
  { kind: "embedded" as const, run: true },
  { kind: "postgres" as const, run: pgUp },
])("the driver's query on $kind", ({ kind, run }) => {
  let db: TestDatabase;
  beforeAll(async () => {
    if (run) db = await createTestDatabase({ kind });
  });
  afterAll(() => db?.close());

  const runners = (): [string, SqlRunner][] => [
    ["driver", db.sql],
    ["prisma", prismaSql(db.prisma)],
  ];

  it.runIf(run)("returns the same rows as Prisma's raw query: parsed jsonb, nulls, text", async () => {
    const text = `SELECT $1::jsonb AS "doc", $2::text AS "none", $3::text AS "word", jsonb_build_object('n', 3) AS "built"`;
    const params = [JSON.stringify({ a: [1, "two"], b: null }), null, "héllo"];
    const answers = await Promise.all(runners().map(([, sql]) => sql(text, params)));
    expect(answers[0]).toEqual([{ doc: { a: [1, "two"], b: null }, none: null, word: "héllo", built: { n: 3 } }]);
    expect(answers[1]).toEqual(answers[0]);
  });

  it.runIf(run)("rejects with the database's own message (the executor matches its markers)", async () => {
    const raise = `DO $$ BEGIN RAISE EXCEPTION 'baton_conflict: the plan changed since it was read'; END $$`;
    for (const [, sql] of runners()) await expect(sql(raise, [])).rejects.toThrow(/baton_conflict: the plan changed/);
  });

  it.runIf(run)("never joins a Prisma transaction that is open meanwhile", async () => {
    const conversation = await db.prisma.conversation.create({ data: { title: "outside" } });
    let inside!: () => void;
    const opened = new Promise<void>((resolve) => (inside = resolve));
    const rolledBack = db.prisma
      .$transaction(async (tx) => {
        await tx.conversation.update({ where: { id: conversation.id }, data: { title: "inside, never committed" } });
        inside();
        await new Promise((resolve) => setTimeout(resolve, 150));
        throw new Error("roll back");
      })
      .catch((error: Error) => error.message);
    await opened;
    // on the embedded database this waits for the transaction to end; on PostgreSQL it is
    // another connection: either way it reads only what is committed
    const [row] = await db.sql<{ title: string }>(`SELECT "title" FROM "Conversation" WHERE "id" = $1`, [conversation.id]);
    expect(row.title).toBe("outside");
    expect(await rolledBack).toBe("roll back");
  });
});
