/** Full-text search over the messages of the caller's conversations (services/message-search.ts). */
import { z } from "zod";
import { defineRoute } from "./define.ts";
import { queryInt } from "./query.ts";

export const MAX_SEARCH_QUERY_CHARS = 200;
export const DEFAULT_SEARCH_LIMIT = 20;
export const MAX_SEARCH_LIMIT = 50;

export const searchSegmentSchema = z.object({ text: z.string(), hit: z.boolean() });
export type SearchSegment = z.infer<typeof searchSegmentSchema>;

export const searchResultSchema = z.object({
  messageId: z.string(),
  conversationId: z.string(),
  conversationTitle: z.string(),
  author: z.string(),
  createdAt: z.string(),
  /** plain-text segments; `hit` marks a matched word (rendered as text, never markup) */
  snippet: z.array(searchSegmentSchema),
});
export type SearchResultDTO = z.infer<typeof searchResultSchema>;

export const searchRoutes = {
  /** `?q=words&limit=20`: web-search syntax ("a phrase", -not, or) */
  messages: defineRoute({
    method: "GET",
    path: "/api/search",
    query: z.object({ q: z.string(), limit: queryInt(1, MAX_SEARCH_LIMIT).optional() }),
    response: z.object({ results: z.array(searchResultSchema) }),
  }),
};
