import { NextResponse } from "next/server";
import { z } from "zod";
import { int32, storableText } from "@/server/core/text.ts";
import { handle, parseJson, requireMember, requirePlanIn } from "@/server/auth/guards.ts";
import { getRuntime } from "@/server/runtime.ts";

const controlSchema = z.discriminatedUnion("action", [
  z.object({ action: z.literal("cancel"), reason: storableText().max(500).optional() }),
  z.object({ action: z.literal("retry"), stepIndex: int32().positive() }),
  z.object({ action: z.literal("skip"), stepIndex: int32().positive(), reason: storableText().max(500).optional() }),
]);

type Context = { params: Promise<{ conversationId: string; planId: string }> };

/** Member controls: cancel a plan, retry or skip a failed step. */
export const POST = handle(async (request: Request, context: Context) => {
  const { conversationId, planId } = await context.params;
  const user = await requireMember(request, conversationId);
  await requirePlanIn(conversationId, planId);
  const control = await parseJson(request, controlSchema);
  const { executor } = getRuntime();
  if (control.action === "cancel") {
    await executor.cancelPlan({ planId, reason: control.reason || `cancelled by ${user.name}` });
  } else if (control.action === "retry") {
    await executor.retryStep({ planId, stepIndex: control.stepIndex });
  } else {
    await executor.skipStep({ planId, stepIndex: control.stepIndex, reason: control.reason || `skipped by ${user.name}` });
  }
  return NextResponse.json({ ok: true });
});
