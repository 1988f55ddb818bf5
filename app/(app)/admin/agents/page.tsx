import { AgentsEditor } from "@/components/admin/agents-editor.tsx";
import { getRuntime } from "@/server/runtime.ts";
import { listAgentsForAdmin } from "@/server/services/admin-agents.ts";

export const metadata = { title: "Agents" };

export default async function AgentsPage() {
  const agents = await listAgentsForAdmin(getRuntime().prisma);
  return <AgentsEditor initialAgents={agents} />;
}
