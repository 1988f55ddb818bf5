import { getTranslations } from "next-intl/server";
import { UsageCharts } from "@/components/admin/usage-charts.tsx";
import { requirePageAdmin } from "@/server/auth/page-session.ts";
import { getRuntime } from "@/server/runtime.ts";

export async function generateMetadata() {
  return { title: (await getTranslations("admin.sections"))("usage") };
}

export default async function UsagePage() {
  const actor = await requirePageAdmin();
  const usage = await getRuntime().app.admin.usage({ actor, days: 30 });
  return <UsageCharts usage={usage} />;
}
