import { handle, requireMember, requirePlanIn } from "@/server/auth/guards.ts";
import { getRuntime } from "@/server/runtime.ts";

type Context = { params: Promise<{ conversationId: string; planId: string }> };

/** The plan's merged result as a patch download (members); never rendered, the diff is untrusted text. */
export const GET = handle(async (request: Request, context: Context) => {
  const { conversationId, planId } = await context.params;
  const actor = await requireMember(request, conversationId);
  await requirePlanIn(conversationId, planId);
  const patch = await getRuntime().app.workspace.planPatch({ actor, planId });
  return new Response(patch.text, {
    headers: {
      "Content-Type": "text/x-patch; charset=utf-8",
      "Content-Disposition": `attachment; filename*=UTF-8''${encodeURIComponent(patch.fileName)}`,
      "X-Content-Type-Options": "nosniff",
      "Content-Security-Policy": "default-src 'none'; sandbox",
      "Cache-Control": "private, no-store",
    },
  });
});
