import type { ProviderHealth } from "@/server/protocol/rest/admin-views.ts";

const STATE_STYLE = {
  closed: "bg-emerald-100 text-emerald-800 dark:bg-emerald-900/40 dark:text-emerald-200",
  "half-open": "bg-amber-100 text-amber-800 dark:bg-amber-900/40 dark:text-amber-200",
  open: "bg-red-100 text-red-800 dark:bg-red-900/40 dark:text-red-200",
} as const;

const STATE_LABEL = { closed: "closed (calls go out)", "half-open": "half-open (one probe out)", open: "open (runs wait)" } as const;

function inSeconds(at: number | null, now: number): string {
  if (at === null) return "—";
  return `in ${Math.max(0, Math.round((at - now) / 1000))} s`;
}

/** This process's circuit breakers, one row per model it has called. */
export function ProviderHealthTable({ health }: { health: ProviderHealth }) {
  return (
    <section aria-labelledby="providers-title" className="space-y-3">
      <h2 id="providers-title" className="text-sm font-semibold">
        Model providers (this process)
      </h2>
      <p className="text-sm text-zinc-600 dark:text-zinc-400">
        After repeated transient failures a model&apos;s circuit opens: runs of that model wait instead of calling it, and one probe goes
        out per cool-down; other models of the same provider go on. Each server process keeps its own breakers.
      </p>
      {!health.enabled ? (
        <p className="text-sm">This process runs no circuit breakers.</p>
      ) : health.providers.length === 0 ? (
        <p className="text-sm" data-testid="providers-empty">
          No provider has been called since this process started (the offline model has no breaker).
        </p>
      ) : (
        <table className="w-full text-left text-sm" data-testid="provider-health">
          <thead className="text-xs text-zinc-500">
            <tr>
              <th className="py-1 pr-3">Model</th>
              <th className="py-1 pr-3">Circuit</th>
              <th className="py-1 pr-3">Failures in a row</th>
              <th className="py-1 pr-3">Next probe</th>
              <th className="py-1 pr-3">Runs waiting</th>
              <th className="py-1 pr-3">Times opened</th>
              <th className="py-1">Last failure</th>
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
                  <span className={`rounded px-1.5 py-0.5 text-xs ${STATE_STYLE[provider.state]}`}>{STATE_LABEL[provider.state]}</span>
                </td>
                <td className="py-1 pr-3">{provider.consecutiveFailures}</td>
                <td className="py-1 pr-3">{inSeconds(provider.nextProbeAt, health.at)}</td>
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
