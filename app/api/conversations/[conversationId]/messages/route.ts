import { NextResponse } from "next/server";
import { z } from "zod";
import { storableText } from "@/server/core/text.ts";
import { enforceRate, handle, parseJson, requireMember } from "@/server/auth/guards.ts";
import { MESSAGE_RATE } from "@/server/auth/rate-limit.ts";
import { getRuntime } from "@/server/runtime.ts";
import { MAX_MESSAGE_CHARS } from "@/server/protocol/limits.ts";

const messageSchema = z.object({
  body: storableText()
    .max(MAX_MESSAGE_CHARS, `A message can hold at most ${MAX_MESSAGE_CHARS} characters.`)
    .refine((body) => body.trim().length > 0, "Write something first."),
  mentionHandles: z
    .array(z.string().regex(/^[a-z0-9_-]{1,40}$/))
    .max(20)
    .default([]),
  attachmentIds: z.array(storableText().min(1).max(64)).max(10).default([]),
});

type Context = { params: Promise<{ conversationId: string }> };

export const POST = handle(async (request: Request, context: Context) => {
  const { conversationId } = await context.params;
  const user = await requireMember(request, conversationId);
  enforceRate(`message:${user.id}`, MESSAGE_RATE);
  const input = await parseJson(request, messageSchema);
  const { notInConversation, ...message } = await getRuntime().executor.postMessage({
    conversationId,
    author: { kind: "user", userId: user.id },
    body: input.body,
    mentionHandles: [...new Set(input.mentionHandles)],
    attachmentIds: input.attachmentIds,
  });
  return NextResponse.json({ message, notInConversation }, { status: 201 });
});
