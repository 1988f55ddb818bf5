"use client";
import { useState } from "react";
import { useTranslations } from "next-intl";
import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import type { Usage, UsageRow } from "@/server/protocol/rest/admin-views.ts";
import { formatUsage } from "../conversation/usage-totals.ts";
import { ACROSS_AXIS_HEIGHT, axisTicks, categoryAxis, formatCost, formatCount, zeroBasedDomain } from "./chart-axis.ts";
import { reasonWord } from "../conversation/step-words.ts";

/** Cost axes end at least here: with nothing spent the axis reads $0–$0.01, not an arbitrary $0–$4. */
const COST_EPSILON = 0.01;
const TOKEN_EPSILON = 10;
const FONT_SIZE = 12;
/** px; a chart with tilted labels grows by their height, so its bars keep their room */
const CHART_HEIGHT = 256;
/** the value axes' widths (the tokens axis is Recharts' default) and the chart's side margins */
const TOKEN_AXIS_WIDTH = 60;
const COST_AXIS_WIDTH = 72;
const MARGIN = { left: 0, right: 8, top: 8, bottom: 0 };

/**
 * One usage chart. `categories`: its rows are models, agents or reasons, and every one is
 * named on the axis (tilted when the chart is narrow, as on a phone); otherwise they are
 * days, which the axis may thin out.
 */
function Chart({ title, rows, categories = true }: { title: string; rows: UsageRow[]; categories?: boolean }) {
  const t = useTranslations("admin.usage");
  const [width, setWidth] = useState<number | null>(null);
  const axis =
    categories && width !== null
      ? categoryAxis({
          labels: rows.map((row) => row.key),
          plotWidth: width - TOKEN_AXIS_WIDTH - COST_AXIS_WIDTH - MARGIN.left - MARGIN.right,
          fontSize: FONT_SIZE,
        })
      : null;
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
        <div
          style={{ height: CHART_HEIGHT + (axis ? axis.height - ACROSS_AXIS_HEIGHT : 0) }}
          data-cost-max={costDomain[1]}
          data-token-max={tokenDomain[1]}
        >
          <ResponsiveContainer width="100%" height="100%" onResize={(measured) => setWidth(measured)}>
            <BarChart data={rows} margin={MARGIN}>
              <CartesianGrid strokeDasharray="3 3" strokeOpacity={0.3} />
              {axis ? (
                <XAxis
                  dataKey="key"
                  tick={{ fontSize: FONT_SIZE }}
                  interval={0}
                  angle={axis.angle}
                  textAnchor={axis.angle === 0 ? "middle" : "end"}
                  height={axis.height}
                  tickFormatter={axis.format}
                />
              ) : (
                <XAxis dataKey="key" tick={{ fontSize: FONT_SIZE }} />
              )}
              <YAxis
                yAxisId="tokens"
                width={TOKEN_AXIS_WIDTH}
                tick={{ fontSize: FONT_SIZE }}
                domain={tokenDomain}
                ticks={axisTicks(tokenDomain)}
                allowDataOverflow={false}
                tickFormatter={formatCount}
                label={{ value: t("tokens"), angle: -90, position: "insideLeft", fontSize: FONT_SIZE }}
              />
              <YAxis
                yAxisId="cost"
                orientation="right"
                tick={{ fontSize: FONT_SIZE }}
                domain={costDomain}
                ticks={axisTicks(costDomain)}
                tickFormatter={(v: number) => formatCost(v, costDomain[1])}
                width={COST_AXIS_WIDTH}
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
  const words = useTranslations("conversation");
  return (
    <div className="flex flex-col gap-4">
      <div className="flex flex-wrap items-baseline gap-4">
        <h2 className="text-lg font-semibold">{t("title")}</h2>
        <span className="text-sm text-zinc-600 dark:text-zinc-400">
          {t("runs", { count: usage.totals.runs })} · {formatUsage(usage.totals, (figures) => words("usageLine", figures))}
          {usage.totals.cacheReadTokens > 0 ? ` · ${t("cached", { count: usage.totals.cacheReadTokens })}` : ""}
          {usage.totals.estimated ? ` ${t("estimated")}` : ""}
        </span>
      </div>
      <Chart title={t("byDay")} rows={usage.byDay} categories={false} />
      <div className="grid gap-4 xl:grid-cols-2">
        <Chart title={t("byModel")} rows={usage.byModel} />
        <Chart title={t("byAgent")} rows={usage.byAgent} />
        <Chart title={t("byReason")} rows={usage.byReason.map((row) => ({ ...row, key: t("reason", { reason: reasonWord(row.key) }) }))} />
      </div>
    </div>
  );
}
