import { NextResponse } from "next/server";
import { z } from "zod";
import { storableText } from "@/server/core/text.ts";
import { handle, parseJson, requireUser } from "@/server/auth/guards.ts";
import { getRuntime } from "@/server/runtime.ts";
import { joinUserToConversation } from "@/server/socket/rooms.ts";

const createSchema = z.object({
  title: storableText().trim().min(1, "Give the conversation a title").max(120),
  agentHandles: z
    .array(z.string().regex(/^[a-z0-9_-]{1,40}$/))
    .max(30)
    .default([]),
});

export const GET = handle(async (request: Request) => {
  const user = await requireUser(request);
  const conversations = await getRuntime().services.listConversations({ userId: user.id });
  return NextResponse.json({ conversations });
});

export const POST = handle(async (request: Request) => {
  const user = await requireUser(request);
  const input = await parseJson(request, createSchema);
  const created = await getRuntime().services.createConversation({ ...input, userId: user.id });
  joinUserToConversation({ userId: user.id, conversationId: created.id });
  return NextResponse.json(created, { status: 201 });
});
