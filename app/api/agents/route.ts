import { NextResponse } from "next/server";
import { handle, requireUser } from "@/server/auth/guards.ts";
import { getRuntime } from "@/server/runtime.ts";

/** Agents anyone may add to a new conversation. */
export const GET = handle(async (request: Request) => {
  await requireUser(request);
  return NextResponse.json({ agents: await getRuntime().services.listAgents() });
});
