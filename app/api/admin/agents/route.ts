import { NextResponse } from "next/server";
import { handle, parseJson, requireAdmin } from "@/server/auth/guards.ts";
import { getRuntime } from "@/server/runtime.ts";
import { workspaceModels } from "@/server/services/workspace-models.ts";
import { agentInputSchema, createAgent, listAgentsForAdmin } from "@/server/services/admin-agents.ts";

export const GET = handle(async (request: Request) => {
  const actor = await requireAdmin(request);
  return NextResponse.json({ agents: await listAgentsForAdmin(getRuntime().prisma, { actor }) });
});

export const POST = handle(async (request: Request) => {
  const actor = await requireAdmin(request);
  const input = await parseJson(request, agentInputSchema);
  const runtime = getRuntime();
  const agent = await createAgent(runtime.prisma, { actor, input, models: workspaceModels() });
  runtime.executor.agentsChanged();
  return NextResponse.json({ agent }, { status: 201 });
});
