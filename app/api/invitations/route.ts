import { handle, requireUser } from "@/server/auth/guards.ts";
import { membershipServices } from "@/server/services/runtime-services.ts";

/** The signed-in person's pending conversation invitations. */
export const GET = handle(async (request: Request) => {
  const actor = await requireUser(request);
  return Response.json({ invitations: await membershipServices().listMyInvitations({ actor }) });
});
