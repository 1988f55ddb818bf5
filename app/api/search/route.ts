import { NextResponse } from "next/server";
import { handle, requireUser } from "@/server/auth/guards.ts";
import { intParam } from "@/server/http/params.ts";
import { getRuntime } from "@/server/runtime.ts";
import { DEFAULT_SEARCH_LIMIT, MAX_SEARCH_LIMIT, searchMessages } from "@/server/services/message-search.ts";

/** Full-text search over the messages of the caller's own conversations: `?q=words&limit=20`. */
export const GET = handle(async (request: Request) => {
  const user = await requireUser(request);
  const url = new URL(request.url);
  const limit = intParam(url.searchParams.get("limit"), { name: "limit", min: 1, max: MAX_SEARCH_LIMIT, fallback: DEFAULT_SEARCH_LIMIT });
  const results = await searchMessages(getRuntime().prisma, { actor: user, query: url.searchParams.get("q") ?? "", limit });
  return NextResponse.json({ results });
});
