/**
 * Full-text search over the messages of the conversations a person belongs to
 * (PostgreSQL text search; the same on PGlite). Membership is part of the query
 * itself — the join on the searcher's memberships is the authorization — so no
 * message of another conversation can be read, ranked or counted.
 *
 * Two ways to match, so that words inside Chinese, Japanese and Korean text are found too:
 * English full-text search (the expression index of migration `message_search`; the WHERE
 * clause uses exactly `to_tsvector('english', body)`), or the query's terms as substrings
 * (`body ILIKE '%term%'`, served by the trigram index of `message_search_trigram`; ILIKE
 * still matches terms shorter than a trigram, such as the two-character 编排, though the
 * index cannot narrow those and they cost a scan). Queries use web-search syntax
 * ("quoted phrases", -excluded, or). Highlights come back as segments of plain text
 * (`hit` marks a match), never as markup, so the browser renders them as text.
 */
import { Prisma, type PrismaClient } from "../generated/prisma/client.ts";
import type { Actor } from "../access/actor.ts";
import { BatonError, invalidInput } from "../protocol/errors.ts";
import {
  DEFAULT_SEARCH_LIMIT,
  MAX_SEARCH_LIMIT,
  MAX_SEARCH_QUERY_CHARS,
  type SearchResultDTO,
  type SearchSegment,
} from "../protocol/rest/search.ts";
import { containsPattern, substringSnippet, substringTerms, type SubstringTerms } from "./search-text.ts";

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
  body: string;
  wordMatch: boolean;
  headline: string;
}

/** `body` contains the terms as substrings: every one, or any one when the query said `or`. */
function substringCondition(terms: SubstringTerms): Prisma.Sql {
  if (!terms.include.length) return Prisma.sql`FALSE`;
  const included = terms.include.map((term) => Prisma.sql`m."body" ILIKE ${containsPattern(term)}`);
  const excluded = terms.exclude.map((term) => Prisma.sql`m."body" NOT ILIKE ${containsPattern(term)}`);
  const wanted = Prisma.join(included, terms.any ? " OR " : " AND ");
  return excluded.length ? Prisma.sql`(${wanted}) AND ${Prisma.join(excluded, " AND ")}` : Prisma.sql`(${wanted})`;
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
  const terms = substringTerms(query);
  const options = `StartSel=${START}, StopSel=${STOP}, MaxWords=24, MinWords=8, MaxFragments=2, FragmentDelimiter=" … "`;
  // Word matches (English stemming, ranked by ts_rank) come first, as before; messages that
  // hold the terms only inside longer runs of text (CJK) follow, newest first.
  const rows = await prisma.$queryRaw<Row[]>`
    SELECT m."id", m."conversationId", c."title", COALESCE(u."name", a."name", m."authorAgentName") AS "author", m."createdAt", m."body",
           (to_tsvector('english', m."body") @@ q.query) AS "wordMatch",
           ts_headline('english', translate(m."body", ${START + STOP}, ''), q.query, ${options}) AS "headline"
    FROM "Message" m
    JOIN "Membership" mb ON mb."conversationId" = m."conversationId" AND mb."userId" = ${input.actor.id}
    JOIN "Conversation" c ON c."id" = m."conversationId"
    LEFT JOIN "user" u ON u."id" = m."authorUserId"
    LEFT JOIN "Agent" a ON a."id" = m."authorAgentId"
    CROSS JOIN websearch_to_tsquery('english', ${query}) AS q(query)
    WHERE m."deletedAt" IS NULL AND (to_tsvector('english', m."body") @@ q.query OR ${substringCondition(terms)})
    ORDER BY "wordMatch" DESC, ts_rank(to_tsvector('english', m."body"), q.query) DESC, m."createdAt" DESC
    LIMIT ${limit}`;
  return rows.map((row) => {
    const headline = headlineSegments(row.headline);
    return {
      messageId: row.id,
      conversationId: row.conversationId,
      conversationTitle: row.title,
      author: row.author ?? "Baton",
      createdAt: new Date(row.createdAt).toISOString(),
      snippet: row.wordMatch && headline.some((segment) => segment.hit) ? headline : substringSnippet(row.body, terms.include),
    };
  });
}
