import { NextResponse } from "next/server";
import { handle, parseJson, requireAdmin } from "@/server/auth/guards.ts";
import { getRuntime } from "@/server/runtime.ts";
import { workspaceModels } from "@/server/services/workspace-models.ts";
import { agentInputSchema, updateAgent } from "@/server/services/admin-agents.ts";

type Context = { params: Promise<{ agentId: string }> };

export const PUT = handle(async (request: Request, context: Context) => {
  const actor = await requireAdmin(request);
  const { agentId } = await context.params;
  const input = await parseJson(request, agentInputSchema);
  const runtime = getRuntime();
  const agent = await updateAgent(runtime.prisma, { actor, agentId, input, models: workspaceModels() });
  runtime.executor.agentsChanged();
  return NextResponse.json({ agent });
});
