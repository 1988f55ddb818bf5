// The PostgreSQL extensions Baton's migrations create, as PGlite bundles them. PGlite loads
// an extension only when it is passed at creation, so every PGlite that opens Baton's
// database (server, tests, backups, the migration shadow) passes these: a database whose
// trigram index exists cannot insert a message without pg_trgm loaded.
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";

/** pg_trgm: the trigram index that finds words inside Chinese, Japanese and Korean text (message search). */
export const PGLITE_EXTENSIONS = { pg_trgm };
