import { notFound } from "next/navigation";
import Link from "next/link";
import { PlanTimelineView } from "@/components/admin/plan-timeline.tsx";
import { requirePageAdmin } from "@/server/auth/page-session.ts";
import { getRuntime } from "@/server/runtime.ts";
import { getPlanTimeline } from "@/server/services/admin-plans.ts";

export const metadata = { title: "Plan timeline" };

export default async function PlanTimelinePage({ params }: { params: Promise<{ planId: string }> }) {
  const actor = await requirePageAdmin();
  const { planId } = await params;
  const timeline = await getPlanTimeline(getRuntime().prisma, { actor, planId });
  if (!timeline) notFound();
  return (
    <div className="flex flex-col gap-4">
      <Link href="/admin/plans" className="text-sm text-accent hover:underline">
        ← Plan history
      </Link>
      <PlanTimelineView timeline={timeline} />
    </div>
  );
}
