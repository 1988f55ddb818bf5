import { notFound } from "next/navigation";
import Link from "next/link";
import { getTranslations } from "next-intl/server";
import { PlanAnswersView } from "@/components/admin/plan-answers.tsx";
import { PlanTimelineView } from "@/components/admin/plan-timeline.tsx";
import { requirePageAdmin } from "@/server/auth/page-session.ts";
import { getRuntime } from "@/server/runtime.ts";

export async function generateMetadata() {
  return { title: (await getTranslations("admin.sections"))("planTimeline") };
}

export default async function PlanTimelinePage({ params }: { params: Promise<{ planId: string }> }) {
  const actor = await requirePageAdmin();
  const { planId } = await params;
  const { admin } = getRuntime().app;
  const timeline = await admin.planTimeline({ actor, planId });
  if (!timeline) notFound();
  const answers = await admin.planAnswers({ actor, planId });
  const t = await getTranslations("admin.plans");
  return (
    <div className="flex flex-col gap-4">
      <nav aria-label={t("back")} className="flex flex-wrap gap-x-4 text-sm">
        <Link href="/admin/plans" className="text-accent hover:underline">
          {t("backToHistory")}
        </Link>
        <Link href={`/admin/plans?conversation=${timeline.conversation.id}`} className="text-accent hover:underline">
          {t("conversationPlans")}
        </Link>
      </nav>
      <PlanTimelineView timeline={timeline} />
      <PlanAnswersView answers={answers} />
    </div>
  );
}
