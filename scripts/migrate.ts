// npm run db:migrate
//   Applies pending migrations (prisma/migrations) to the configured database, as the
//   server does at start-up: DATABASE_URL=postgres://… → that PostgreSQL; unset → the
//   embedded PGlite in $BATON_DATA_DIR/pglite (default ./data/pglite).

import path from "node:path";
import { openDatabase } from "../server/db/database.ts";

async function main(): Promise<number> {
  const url = process.env.DATABASE_URL?.trim() || undefined;
  const dataDir = path.join(process.env.BATON_DATA_DIR || "./data", "pglite");
  const db = await openDatabase({ url, dataDir });
  try {
    const where = db.kind === "embedded" ? `embedded PGlite in ${dataDir}` : "PostgreSQL";
    if (db.appliedMigrations.length === 0) console.log(`${where}: up to date`);
    else console.log(`${where}: applied ${db.appliedMigrations.join(", ")}`);
    return 0;
  } finally {
    await db.close();
  }
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    console.error(e instanceof Error ? (e.stack ?? e.message) : e);
    process.exit(1);
  },
);
