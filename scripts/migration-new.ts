// npm run db:migrate:new -- <name>
//   Writes prisma/migrations/<YYYYMMDDHHMMSS>_<name>/migration.sql with the SQL that takes a
//   database built from the existing migrations to prisma/schema.prisma (what
//   `prisma migrate dev --create-only` does), computed offline by Prisma's schema engine
//   as WebAssembly on an in-memory PGlite shadow database. Refuses to write an empty one.
// npm run db:migrate:new -- check     (or --check)
//   Writes nothing; exits 1 when the schema has changes no migration covers yet.
//
// Options: --schema <path> (default prisma/schema.prisma),
//          --migrations <dir> (default prisma/migrations)

import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { MIGRATION_LOCK_CONTENT, MIGRATION_LOCK_FILE, diffMigrations, readMigrationsFolder } from "../server/db/schema-engine.ts";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

function usage(message?: string): never {
  if (message) console.error(message);
  console.error("usage: npm run db:migrate:new -- <name> | check  [--schema <path>] [--migrations <dir>]");
  process.exit(2);
}

/** UTC YYYYMMDDHHMMSS, as Prisma names migration folders. */
function timestamp(d = new Date()): string {
  const p = (n: number) => String(n).padStart(2, "0");
  return `${d.getUTCFullYear()}${p(d.getUTCMonth() + 1)}${p(d.getUTCDate())}${p(d.getUTCHours())}${p(d.getUTCMinutes())}${p(d.getUTCSeconds())}`;
}

async function main(): Promise<number> {
  let name: string | undefined;
  let check = false;
  let schemaPath = path.join(root, "prisma/schema.prisma");
  let migrationsDir = path.join(root, "prisma/migrations");
  const args = process.argv.slice(2);
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === "--check" || a === "check") check = true;
    else if (a === "--schema") schemaPath = path.resolve(args[++i] ?? usage("--schema needs a path"));
    else if (a === "--migrations") migrationsDir = path.resolve(args[++i] ?? usage("--migrations needs a path"));
    else if (a === "-h" || a === "--help") usage();
    else if (a.startsWith("-")) usage(`unknown option ${a}`);
    else if (name) usage("give one migration name");
    else name = a;
  }
  if (check && name) usage("`check` takes no migration name");
  if (!check && !name) usage("missing migration name");

  const sql = await diffMigrations({ migrationsDir, schemaPath });
  if (!sql) {
    console.log("schema and migrations agree; nothing to write");
    return 0;
  }
  if (check) {
    console.error("schema has changes that no migration covers yet; run: npm run db:migrate:new -- <name>\n");
    console.error(sql);
    return 1;
  }

  const slug = name!
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9_]+/g, "_")
    .replace(/^_+|_+$/g, "")
    .slice(0, 200);
  if (!slug) usage(`migration name ${JSON.stringify(name)} has no usable characters`);

  const { migrations } = await readMigrationsFolder(migrationsDir);
  let stamp = timestamp();
  // keep folders strictly ordered even when two are created within the same second
  const last = migrations.at(-1)?.name.slice(0, 14);
  if (last && /^\d{14}$/.test(last) && stamp <= last) stamp = String(BigInt(last) + 1n);

  const dir = path.join(migrationsDir, `${stamp}_${slug}`);
  if (existsSync(dir)) throw new Error(`${dir} already exists`);
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(dir, "migration.sql"), sql, "utf8");
  const lock = path.join(migrationsDir, MIGRATION_LOCK_FILE);
  if (!existsSync(lock)) await writeFile(lock, MIGRATION_LOCK_CONTENT, "utf8");

  console.log(`wrote ${path.relative(process.cwd(), path.join(dir, "migration.sql"))}`);
  console.log("read it before committing; it is applied on the next start (or npm run db:migrate)");
  return 0;
}

// exit explicitly: the PGlite shadow database's runtime keeps the event loop alive
main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    console.error(e instanceof Error ? (e.stack ?? e.message) : e);
    process.exit(1);
  },
);
