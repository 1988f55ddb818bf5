-- Search inside words (server/services/message-search.ts): English full-text search makes a
-- whole Chinese, Japanese or Korean sentence one token, so a word inside it is found by
-- substring (ILIKE), which this trigram index serves. pg_trgm is a trusted extension
-- (PostgreSQL 13 and later let a database owner create it), and PGlite loads it from its
-- contrib bundle (server/db/pglite-extensions.ts). No semicolons in these comments: the
-- statements are split on them.
CREATE EXTENSION IF NOT EXISTS pg_trgm;

-- CreateIndex
CREATE INDEX "Message_body_trgm_idx" ON "Message" USING GIN ("body" gin_trgm_ops);
