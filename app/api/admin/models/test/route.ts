import { NextResponse } from "next/server";
import { z } from "zod";
import { handle, parseJson, requireAdmin } from "@/server/auth/guards.ts";
import { tryModel } from "@/server/agents/model-check.ts";
import { storableText } from "@/server/core/text.ts";
import { workspaceModels } from "@/server/services/workspace-models.ts";

/** Admin: one small call to a model id, to see it work (or why not) before saving an agent with it. */
export const POST = handle(async (request: Request) => {
  await requireAdmin(request);
  const { model } = await parseJson(request, z.object({ model: storableText().trim().min(1).max(120) }));
  return NextResponse.json(await tryModel({ models: workspaceModels(), modelId: model }));
});
