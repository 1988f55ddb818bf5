/**
 * Full-text search over the messages of the conversations a person belongs to
 * (PostgreSQL text search; the same on PGlite). Membership is part of the query
 * itself — the join on the searcher's memberships is the authorization — so no
 * message of another conversation can be read, ranked or counted.
 *
 * Served by the expression index of migration `message_search`: the WHERE clause
 * uses exactly `to_tsvector('english', body)`. Queries use web-search syntax
 * ("quoted phrases", -excluded, or). Highlights come back as segments of plain text
 * (`hit` marks a match), never as markup, so the browser renders them as text.
 */
import type { PrismaClient } from "../generated/prisma/client.ts";
import type { Actor } from "../auth/actor.ts";
import { BatonError, invalidInput } from "../executor/errors.ts";
import {
  DEFAULT_SEARCH_LIMIT,
  MAX_SEARCH_LIMIT,
  MAX_SEARCH_QUERY_CHARS,
  type SearchResultDTO,
  type SearchSegment,
} from "../protocol/rest/search.ts";

/** Control characters that never appear in a stored message mark where ts_headline's matches start and stop. */
const START = "\u0001";
const STOP = "\u0002";

/** A headline with START/STOP marks → text segments; marks never nest. */
export function headlineSegments(headline: string): SearchSegment[] {
  const segments: SearchSegment[] = [];
  let hit = false;
  let text = "";
  const flush = () => {
    if (text) segments.push({ text, hit });
    text = "";
  };
  for (const char of headline) {
    if (char === START || char === STOP) {
      flush();
      hit = char === START;
    } else text += char;
  }
  flush();
  return segments;
}

interface Row {
  id: string;
  conversationId: string;
  title: string;
  author: string | null;
  createdAt: Date;
  headline: string;
}

export async function searchMessages(
  prisma: PrismaClient,
  input: { actor: Actor | null; query: string; limit?: number },
): Promise<SearchResultDTO[]> {
  if (!input.actor?.id) throw new BatonError("unauthenticated", "Sign in first.");
  const query = input.query.trim();
  if (!query) throw invalidInput("q: type something to search for");
  if (query.length > MAX_SEARCH_QUERY_CHARS) throw invalidInput(`q: longer than ${MAX_SEARCH_QUERY_CHARS} characters`);
  const limit = Math.min(Math.max(1, Math.trunc(input.limit ?? DEFAULT_SEARCH_LIMIT)), MAX_SEARCH_LIMIT);
  const options = `StartSel=${START}, StopSel=${STOP}, MaxWords=24, MinWords=8, MaxFragments=2, FragmentDelimiter=" … "`;
  const rows = await prisma.$queryRaw<Row[]>`
    SELECT m."id", m."conversationId", c."title", COALESCE(u."name", a."name") AS "author", m."createdAt",
           ts_headline('english', translate(m."body", ${START + STOP}, ''), q.query, ${options}) AS "headline"
    FROM "Message" m
    JOIN "Membership" mb ON mb."conversationId" = m."conversationId" AND mb."userId" = ${input.actor.id}
    JOIN "Conversation" c ON c."id" = m."conversationId"
    LEFT JOIN "user" u ON u."id" = m."authorUserId"
    LEFT JOIN "Agent" a ON a."id" = m."authorAgentId"
    CROSS JOIN websearch_to_tsquery('english', ${query}) AS q(query)
    WHERE m."deletedAt" IS NULL AND to_tsvector('english', m."body") @@ q.query
    ORDER BY ts_rank(to_tsvector('english', m."body"), q.query) DESC, m."createdAt" DESC
    LIMIT ${limit}`;
  return rows.map((row) => ({
    messageId: row.id,
    conversationId: row.conversationId,
    conversationTitle: row.title,
    author: row.author ?? "Baton",
    createdAt: new Date(row.createdAt).toISOString(),
    snippet: headlineSegments(row.headline),
  }));
}
