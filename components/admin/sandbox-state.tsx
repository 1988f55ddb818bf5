import { useTranslations } from "next-intl";
import type { SandboxView } from "@/server/protocol/rest/admin-views.ts";

/** Whether agents' commands run sandboxed here; a banner when they are refused or run without one. */
export function SandboxState({ sandbox }: { sandbox: SandboxView }) {
  const t = useTranslations("admin.sandbox");
  const code = (chunks: React.ReactNode) => <code>{chunks}</code>;
  if (sandbox.state === "ready") {
    return (
      <section aria-labelledby="sandbox-title" className="space-y-1" data-testid="sandbox-state" data-state="ready">
        <h2 id="sandbox-title" className="text-sm font-semibold">
          {t("title")}
        </h2>
        <p className="text-sm text-zinc-600 dark:text-zinc-400">{t.rich("ready", { code })}</p>
      </section>
    );
  }
  const bypassed = sandbox.state === "unsandboxed";
  return (
    <section
      role="alert"
      aria-labelledby="sandbox-title"
      data-testid="sandbox-state"
      data-state={sandbox.state}
      className="space-y-1 rounded-md border border-red-300 bg-red-50 p-3 text-sm text-red-900 dark:border-red-800 dark:bg-red-950/40 dark:text-red-100"
    >
      <h2 id="sandbox-title" className="font-semibold">
        {bypassed ? t("bypassedTitle") : t("refusedTitle")}
      </h2>
      <p>
        {bypassed ? t("bypassed") : t("refused")} {t("reason", { reason: sandbox.reason ?? "" })}
      </p>
      <p>
        {t.rich("fix", { code, fix: sandbox.fix })}
        {bypassed ? t("fixThenBypassed") : t("fixThen")}
      </p>
    </section>
  );
}
