import { getTranslations } from "next-intl/server";
import { InvitesPanel } from "@/components/admin/invites-panel.tsx";
import { requirePageAdmin } from "@/server/auth/page-session.ts";
import { getRuntime } from "@/server/runtime.ts";

export async function generateMetadata() {
  return { title: (await getTranslations("admin.sections"))("invites") };
}

export default async function InvitesPage() {
  const actor = await requirePageAdmin();
  return <InvitesPanel invites={await getRuntime().app.admin.listInvites({ actor })} />;
}
