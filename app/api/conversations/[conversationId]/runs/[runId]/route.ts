import { NextResponse } from "next/server";
import { z } from "zod";
import { handle, parseJson, requireMember } from "@/server/auth/guards.ts";
import { getRuntime } from "@/server/runtime.ts";

const controlSchema = z.object({ action: z.literal("stop") });

type Context = { params: Promise<{ conversationId: string; runId: string }> };

/**
 * A member's Stop on a live run: a direct mention's answer or the commander's reply
 * stops (its final state goes out as a run update); a plan's run stops its plan.
 * 404 for a run of another conversation, 409 for one that has already ended.
 */
export const POST = handle(async (request: Request, context: Context) => {
  const { conversationId, runId } = await context.params;
  const user = await requireMember(request, conversationId);
  await parseJson(request, controlSchema);
  const result = await getRuntime().executor.stopRun({ actor: user, conversationId, runId, reason: `stopped by ${user.name}` });
  return NextResponse.json(result);
});
