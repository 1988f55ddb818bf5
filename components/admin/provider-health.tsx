import { useTranslations } from "next-intl";
import type { ProviderHealth } from "@/server/protocol/rest/admin-views.ts";

const STATE_STYLE = {
  closed: "bg-emerald-100 text-emerald-800 dark:bg-emerald-900/40 dark:text-emerald-200",
  "half-open": "bg-amber-100 text-amber-800 dark:bg-amber-900/40 dark:text-amber-200",
  open: "bg-red-100 text-red-800 dark:bg-red-900/40 dark:text-red-200",
} as const;

/** This process's circuit breakers, one row per model it has called. */
export function ProviderHealthTable({ health }: { health: ProviderHealth }) {
  const t = useTranslations("admin.providers");
  const inSeconds = (at: number | null) =>
    at === null ? "—" : t("inSeconds", { seconds: Math.max(0, Math.round((at - health.at) / 1000)) });
  return (
    <section aria-labelledby="providers-title" className="space-y-3">
      <h2 id="providers-title" className="text-sm font-semibold">
        {t("title")}
      </h2>
      <p className="text-sm text-zinc-600 dark:text-zinc-400">{t("intro")}</p>
      {!health.enabled ? (
        <p className="text-sm">{t("noBreakers")}</p>
      ) : health.providers.length === 0 ? (
        <p className="text-sm" data-testid="providers-empty">
          {t("empty")}
        </p>
      ) : (
        <table className="w-full text-left text-sm" data-testid="provider-health">
          <thead className="text-xs text-zinc-500">
            <tr>
              <th className="py-1 pr-3">{t("model")}</th>
              <th className="py-1 pr-3">{t("circuit")}</th>
              <th className="py-1 pr-3">{t("failures")}</th>
              <th className="py-1 pr-3">{t("nextProbe")}</th>
              <th className="py-1 pr-3">{t("waiting")}</th>
              <th className="py-1 pr-3">{t("opened")}</th>
              <th className="py-1">{t("lastFailure")}</th>
            </tr>
          </thead>
          <tbody>
            {health.providers.map((provider) => (
              <tr
                key={provider.model}
                className="border-t border-zinc-200 dark:border-zinc-800"
                data-provider={provider.provider}
                data-model={provider.model}
                data-state={provider.state}
              >
                <td className="py-1 pr-3 font-mono">{provider.model}</td>
                <td className="py-1 pr-3">
                  <span className={`rounded px-1.5 py-0.5 text-xs ${STATE_STYLE[provider.state]}`}>
                    {t("state", { state: provider.state === "half-open" ? "half_open" : provider.state })}
                  </span>
                </td>
                <td className="py-1 pr-3">{provider.consecutiveFailures}</td>
                <td className="py-1 pr-3">{inSeconds(provider.nextProbeAt)}</td>
                <td className="py-1 pr-3">{provider.waiting}</td>
                <td className="py-1 pr-3">{provider.opened}</td>
                <td className="py-1 break-all">{provider.lastFailure ?? "—"}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
