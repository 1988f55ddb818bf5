import Link from "next/link";
import { getTranslations } from "next-intl/server";
import { Badge } from "@/components/ui/badge.tsx";
import { inputClass } from "@/components/ui/field.tsx";
import { PLAN_TONE } from "@/components/conversation/step-status.ts";
import { PLAN_STATUSES, type PlanStatus } from "@/server/core/types.ts";
import { requirePageAdmin } from "@/server/auth/page-session.ts";
import { getRuntime } from "@/server/runtime.ts";
import { DateRangeFilter, filteredHref, parseFilterDay } from "@/components/admin/date-range-filter.tsx";

export async function generateMetadata() {
  return { title: (await getTranslations("admin.sections"))("plans") };
}

/** a plan's totals are estimated when any of its runs' usage is (a model call cut mid-stream) */
const estimated = (plan: { usageEstimated: boolean }) => (plan.usageEstimated ? "true" : undefined);

type Search = { q?: string; conversation?: string; status?: string; agent?: string; from?: string; to?: string; after?: string };

/** the page's address with the same filters and another page cursor */
export default async function PlanHistoryPage({ searchParams }: { searchParams: Promise<Search> }) {
  const actor = await requirePageAdmin();
  const search = await searchParams;
  const status = PLAN_STATUSES.includes(search.status as PlanStatus) ? (search.status as PlanStatus) : undefined;
  const { app } = getRuntime();
  const t = await getTranslations("admin.plans");
  const tPlan = await getTranslations("plan");
  const tSections = await getTranslations("admin.sections");
  const [{ plans, next }, agents] = await Promise.all([
    app.admin.planHistory({
      actor,
      filter: {
        title: search.q || undefined,
        conversationId: search.conversation || undefined,
        status,
        agent: search.agent || undefined,
        from: parseFilterDay(search.from),
        to: parseFilterDay(search.to, true),
      },
      after: search.after || undefined,
    }),
    // every agent, disabled ones too: their plans are history like any other
    app.admin.listAgents({ actor }),
  ]);
  return (
    <div className="flex flex-col gap-4">
      <h2 className="text-lg font-semibold">{tSections("plans")}</h2>
      <form className="flex flex-wrap items-end gap-3" aria-label={t("filter")} role="search">
        <label className="flex flex-col gap-1 text-sm">
          {t("titleField")}
          <input type="search" name="q" defaultValue={search.q ?? ""} placeholder={t("titlePlaceholder")} className={inputClass} />
        </label>
        {search.conversation ? (
          <label className="flex items-center gap-2 self-center text-sm">
            <input type="checkbox" name="conversation" value={search.conversation} defaultChecked />
            {plans[0]?.conversation.title ? t("onlyConversation", { title: plans[0].conversation.title }) : t("onlyThisConversation")}
          </label>
        ) : null}
        <label className="flex flex-col gap-1 text-sm">
          {t("status")}
          <select name="status" defaultValue={status ?? ""} className={inputClass}>
            <option value="">{t("any")}</option>
            {PLAN_STATUSES.map((s) => (
              <option key={s} value={s}>
                {tPlan(`status.${s}`)}
              </option>
            ))}
          </select>
        </label>
        <label className="flex flex-col gap-1 text-sm">
          {t("agent")}
          <select name="agent" defaultValue={search.agent ?? ""} className={inputClass}>
            <option value="">{t("any")}</option>
            <option value="user">{t("user")}</option>
            <option value="commander">{t("commander")}</option>
            {agents
              .filter((a) => a.role !== "commander")
              .map((a) => (
                <option key={a.id} value={a.handle}>
                  @{a.handle}
                </option>
              ))}
          </select>
        </label>
        <DateRangeFilter from={search.from} to={search.to} />
      </form>
      <div className="overflow-x-auto rounded-lg border border-zinc-200 dark:border-zinc-800">
        <table className="w-full text-left text-sm" data-testid="plan-history">
          <thead className="bg-zinc-50 text-xs text-zinc-500 dark:bg-zinc-900">
            <tr>
              <th className="px-3 py-2 font-medium">{t("plan")}</th>
              <th className="px-3 py-2 font-medium">{t("conversation")}</th>
              <th className="px-3 py-2 font-medium">{t("status")}</th>
              <th className="px-3 py-2 font-medium">{t("steps")}</th>
              <th className="px-3 py-2 font-medium">{t("agents")}</th>
              <th className="px-3 py-2 font-medium">{t("tokens")}</th>
              <th className="px-3 py-2 font-medium">{t("cost")}</th>
              <th className="px-3 py-2 font-medium">{t("created")}</th>
            </tr>
          </thead>
          <tbody>
            {plans.length === 0 ? (
              <tr>
                <td colSpan={8} className="px-3 py-6 text-center text-zinc-500">
                  {t("none")}
                </td>
              </tr>
            ) : null}
            {plans.map((plan) => (
              <tr key={plan.id} className="border-t border-zinc-200 dark:border-zinc-800" data-plan-status={plan.status}>
                <td className="px-3 py-2">
                  <Link href={`/admin/plans/${plan.id}`} className="font-medium text-accent hover:underline">
                    {plan.title}
                  </Link>
                </td>
                <td className="px-3 py-2">
                  <Link href={`/c/${plan.conversation.id}`} className="text-zinc-700 hover:underline dark:text-zinc-300">
                    {plan.conversation.title}
                  </Link>
                </td>
                <td className="px-3 py-2">
                  <span title={tPlan(`statusHint.${plan.status}`)}>
                    <Badge tone={PLAN_TONE[plan.status]}>{tPlan(`status.${plan.status}`)}</Badge>
                  </span>
                </td>
                <td className="px-3 py-2">
                  {t("stepsDone", { done: plan.doneSteps, total: plan.steps })}
                  {plan.skippedSteps ? <span className="text-zinc-500"> · {t("skipped", { count: plan.skippedSteps })}</span> : null}
                  {plan.failedSteps ? (
                    <span className="text-red-700 dark:text-red-400"> · {t("failed", { count: plan.failedSteps })}</span>
                  ) : null}
                </td>
                <td className="px-3 py-2 text-xs">{plan.assignees.join(", ")}</td>
                <td className="px-3 py-2" data-estimated={estimated(plan)} title={plan.usageEstimated ? t("estimatedNote") : undefined}>
                  {plan.usageEstimated ? "≈ " : ""}
                  {plan.tokens.toLocaleString("en")}
                </td>
                <td className="px-3 py-2" data-estimated={estimated(plan)} title={plan.usageEstimated ? t("estimatedNote") : undefined}>
                  {plan.usageEstimated ? "≈ " : ""}${plan.cost.toFixed(4)}
                </td>
                <td className="px-3 py-2 text-xs text-zinc-500">{plan.createdAt.slice(0, 16).replace("T", " ")}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {next ? (
        <Link
          href={filteredHref("/admin/plans", { ...search, after: next })}
          className="self-start text-sm text-accent hover:underline"
          data-testid="older-plans"
        >
          {t("older")}
        </Link>
      ) : null}
    </div>
  );
}
