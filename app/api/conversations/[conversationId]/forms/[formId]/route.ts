import { NextResponse } from "next/server";
import { z } from "zod";
import { storableText } from "@/server/core/text.ts";
import { handle, parseJson, requireFormIn, requireMember } from "@/server/auth/guards.ts";
import { getRuntime } from "@/server/runtime.ts";

const answerSchema = z.object({
  values: z.record(storableText().max(100), z.union([storableText().max(10_000), z.number(), z.boolean(), z.null()])),
});

type Context = { params: Promise<{ conversationId: string; formId: string }> };

/** Answers a blocked step's form; the executor validates the values against the form and accepts one answer. */
export const POST = handle(async (request: Request, context: Context) => {
  const { conversationId, formId } = await context.params;
  const user = await requireMember(request, conversationId);
  await requireFormIn(conversationId, formId);
  const { values } = await parseJson(request, answerSchema);
  const form = await getRuntime().executor.answerForm({ formId, userId: user.id, values });
  return NextResponse.json({ form });
});
