import { NextResponse } from "next/server";
import { z } from "zod";
import { handle, parseJson, requireAdmin } from "@/server/auth/guards.ts";
import { createInvite } from "@/server/auth/invites.ts";
import { getRuntime } from "@/server/runtime.ts";

export const POST = handle(async (request: Request) => {
  const admin = await requireAdmin(request);
  const { role } = await parseJson(request, z.object({ role: z.enum(["admin", "member"]).default("member") }));
  const invite = await createInvite(getRuntime().prisma, { actor: admin, role });
  const url = new URL(`/sign-up?invite=${invite.token}`, request.url).toString();
  return NextResponse.json({ invite: { ...invite, url } }, { status: 201 });
});
