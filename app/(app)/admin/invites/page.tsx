import { InvitesPanel } from "@/components/admin/invites-panel.tsx";
import { listInvites } from "@/server/services/invites.ts";
import { requirePageAdmin } from "@/server/auth/page-session.ts";
import { getRuntime } from "@/server/runtime.ts";

export const metadata = { title: "Invites" };

export default async function InvitesPage() {
  const actor = await requirePageAdmin();
  const invites = await listInvites(getRuntime().prisma, { actor });
  return (
    <InvitesPanel
      invites={invites.map((invite) => ({
        id: invite.id,
        token: invite.token,
        role: invite.role,
        used: invite.usedAt !== null,
        expiresAt: invite.expiresAt.toISOString(),
      }))}
    />
  );
}
