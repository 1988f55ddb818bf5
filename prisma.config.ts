import { defineConfig } from "prisma/config";

// Prisma's CLI is only used for `prisma generate` here: migrations are produced and
// applied by scripts/ through Prisma's WebAssembly schema engine (see server/db/migrate.ts),
// which works offline and on the embedded PGlite database alike.
export default defineConfig({
  schema: "prisma/schema.prisma",
  migrations: { path: "prisma/migrations" },
});
