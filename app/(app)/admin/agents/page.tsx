import { getTranslations } from "next-intl/server";
import { AgentsEditor } from "@/components/admin/agents-editor.tsx";
import { requirePageAdmin } from "@/server/auth/page-session.ts";
import { getRuntime } from "@/server/runtime.ts";
import { modelChoices, workspaceCliAgents } from "@/server/workspace-models.ts";

export async function generateMetadata() {
  return { title: (await getTranslations("admin.sections"))("agents") };
}

export default async function AgentsPage() {
  // checked here and in the service: the admin layout does not run for every request
  const actor = await requirePageAdmin();
  const agents = await getRuntime().app.admin.listAgents({ actor });
  return <AgentsEditor initialAgents={agents} modelChoices={modelChoices(workspaceCliAgents())} />;
}
