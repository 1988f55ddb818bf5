import { getTranslations } from "next-intl/server";
import { requirePageAdmin } from "@/server/auth/page-session.ts";
import { getRuntime } from "@/server/runtime.ts";
import { getProviderHealth, getSandboxState } from "@/server/services/admin-providers.ts";
import { defaultSandbox } from "@/server/workspace/sandbox.ts";
import { ProviderHealthTable } from "@/components/admin/provider-health.tsx";
import { SandboxState } from "@/components/admin/sandbox-state.tsx";
import { EffortModelsForm } from "@/components/admin/effort-models-form.tsx";

export async function generateMetadata() {
  return { title: (await getTranslations("admin.sections"))("providers") };
}
// the breakers' state changes from second to second: never a cached render
export const dynamic = "force-dynamic";

export default async function ProvidersPage() {
  // checked here and again in the data function: layouts do not run on partial renders
  const actor = await requirePageAdmin();
  const health = getProviderHealth({ actor, circuits: getRuntime().circuits });
  const sandbox = await getSandboxState({ actor, sandbox: defaultSandbox() });
  const effortModels = await getRuntime().app.admin.effortModels({ actor });
  return (
    <div className="space-y-6">
      <SandboxState sandbox={sandbox} />
      <ProviderHealthTable health={health} />
      <EffortModelsForm initial={effortModels} />
    </div>
  );
}
