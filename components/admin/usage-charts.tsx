"use client";
import { useTranslations } from "next-intl";
import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import type { Usage, UsageRow } from "@/server/protocol/rest/admin-views.ts";
import { formatUsage } from "../conversation/usage-totals.ts";
import { axisTicks, formatCost, formatCount, zeroBasedDomain } from "./chart-axis.ts";
import { reasonWord } from "../conversation/step-words.ts";

/** Cost axes end at least here: with nothing spent the axis reads $0–$0.01, not an arbitrary $0–$4. */
const COST_EPSILON = 0.01;
const TOKEN_EPSILON = 10;

function Chart({ title, rows }: { title: string; rows: UsageRow[] }) {
  const t = useTranslations("admin.usage");
  const tokenDomain = zeroBasedDomain(
    rows.map((row) => row.tokensIn + row.tokensOut),
    TOKEN_EPSILON,
  );
  const costDomain = zeroBasedDomain(
    rows.map((row) => row.cost),
    COST_EPSILON,
  );
  return (
    <section aria-label={title} className="rounded-lg border border-zinc-200 p-3 dark:border-zinc-800" data-testid="usage-chart">
      <h3 className="mb-2 text-sm font-semibold">{title}</h3>
      {rows.length === 0 ? (
        <p className="py-8 text-center text-sm text-zinc-600 dark:text-zinc-400">{t("noRuns")}</p>
      ) : (
        <div className="h-64" data-cost-max={costDomain[1]} data-token-max={tokenDomain[1]}>
          <ResponsiveContainer width="100%" height="100%">
            <BarChart data={rows} margin={{ left: 0, right: 8, top: 8, bottom: 0 }}>
              <CartesianGrid strokeDasharray="3 3" strokeOpacity={0.3} />
              <XAxis dataKey="key" tick={{ fontSize: 12 }} />
              <YAxis
                yAxisId="tokens"
                tick={{ fontSize: 12 }}
                domain={tokenDomain}
                ticks={axisTicks(tokenDomain)}
                allowDataOverflow={false}
                tickFormatter={formatCount}
                label={{ value: t("tokens"), angle: -90, position: "insideLeft", fontSize: 12 }}
              />
              <YAxis
                yAxisId="cost"
                orientation="right"
                tick={{ fontSize: 12 }}
                domain={costDomain}
                ticks={axisTicks(costDomain)}
                tickFormatter={(v: number) => formatCost(v, costDomain[1])}
                width={72}
              />
              <Tooltip />
              <Legend />
              <Bar yAxisId="tokens" dataKey="tokensIn" name={t("tokensIn")} stackId="t" fill="#6366f1" />
              <Bar yAxisId="tokens" dataKey="tokensOut" name={t("tokensOut")} stackId="t" fill="#a5b4fc" />
              <Bar yAxisId="cost" dataKey="cost" name={t("cost")} fill="#10b981" />
            </BarChart>
          </ResponsiveContainer>
        </div>
      )}
    </section>
  );
}

export function UsageCharts({ usage }: { usage: Usage }) {
  const t = useTranslations("admin.usage");
  return (
    <div className="flex flex-col gap-4">
      <div className="flex flex-wrap items-baseline gap-4">
        <h2 className="text-lg font-semibold">{t("title")}</h2>
        <span className="text-sm text-zinc-600 dark:text-zinc-400">
          {t("runs", { count: usage.totals.runs })} · {formatUsage(usage.totals)}
          {usage.totals.cacheReadTokens > 0 ? ` · ${t("cached", { count: usage.totals.cacheReadTokens })}` : ""}
          {usage.totals.estimated ? ` ${t("estimated")}` : ""}
        </span>
      </div>
      <Chart title={t("byDay")} rows={usage.byDay} />
      <div className="grid gap-4 xl:grid-cols-2">
        <Chart title={t("byModel")} rows={usage.byModel} />
        <Chart title={t("byAgent")} rows={usage.byAgent} />
        <Chart title={t("byReason")} rows={usage.byReason.map((row) => ({ ...row, key: t("reason", { reason: reasonWord(row.key) }) }))} />
      </div>
    </div>
  );
}
