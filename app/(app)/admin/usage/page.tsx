import { UsageCharts } from "@/components/admin/usage-charts.tsx";
import { getRuntime } from "@/server/runtime.ts";
import { getUsage } from "@/server/services/admin-usage.ts";

export const metadata = { title: "Usage" };

export default async function UsagePage() {
  const usage = await getUsage(getRuntime().prisma, { days: 30 });
  return <UsageCharts usage={usage} />;
}
