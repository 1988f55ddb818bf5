import { getTranslations } from "next-intl/server";
import { RepositoriesPanel } from "@/components/admin/repositories-panel.tsx";
import { SlotsPanel } from "@/components/admin/slots-panel.tsx";
import { requirePageAdmin } from "@/server/auth/page-session.ts";
import { getRuntime } from "@/server/runtime.ts";
import { readWorkspaceSettings } from "@/server/workspace/settings.ts";

export async function generateMetadata() {
  return { title: (await getTranslations("admin.sections"))("repositories") };
}

export default async function RepositoriesPage() {
  // checked here and in the services: the admin layout does not run for every request
  const actor = await requirePageAdmin();
  const { workspace } = getRuntime().app;
  const [repositories, slots] = await Promise.all([
    workspace.listRepositories({ actor }),
    workspace.slotsOverview({ actor, limit: readWorkspaceSettings().slotsPerRepository }),
  ]);
  return (
    <div className="flex max-w-4xl flex-col gap-8">
      <RepositoriesPanel initialRepositories={repositories} />
      <SlotsPanel initial={slots} />
    </div>
  );
}
