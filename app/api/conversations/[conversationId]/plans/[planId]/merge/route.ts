import { NextResponse } from "next/server";
import { handle, requireMember, requirePlanIn } from "@/server/auth/guards.ts";
import { getRuntime } from "@/server/runtime.ts";
import { mergePlanBranches } from "@/server/workspace/merge.ts";

type Context = { params: Promise<{ conversationId: string; planId: string }> };

/** Merge the plan's workspace branches into its result branch: 200 with the merge, 409 naming the conflicting files and hunks. */
export const POST = handle(async (request: Request, context: Context) => {
  const { conversationId, planId } = await context.params;
  const actor = await requireMember(request, conversationId);
  await requirePlanIn(conversationId, planId);
  const result = await mergePlanBranches(getRuntime().prisma, { actor, planId });
  return NextResponse.json(result, { status: result.ok ? 200 : 409 });
});
