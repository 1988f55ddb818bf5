-- Full-text search over message bodies (server/services/message-search.ts): an
-- expression index, so the query must use exactly this expression to be served by it.
-- Not in schema.prisma, which cannot express it. Deleted messages have an empty body.
CREATE INDEX "Message_body_search_idx" ON "Message" USING GIN (to_tsvector('english', "body"));
