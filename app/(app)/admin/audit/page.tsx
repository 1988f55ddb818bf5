import Link from "next/link";
import { getTranslations } from "next-intl/server";
import { inputClass } from "@/components/ui/field.tsx";
import { requirePageAdmin } from "@/server/auth/page-session.ts";
import { getRuntime } from "@/server/runtime.ts";
import { AUDIT_KINDS, AUDIT_PAGE_SIZE } from "@/server/access/audit.ts";
import { auditSentence, renderAuditSentence } from "@/server/services/audit-sentence.ts";
import { DateRangeFilter, filteredHref, parseFilterDay } from "@/components/admin/date-range-filter.tsx";

export async function generateMetadata() {
  return { title: (await getTranslations("admin.sections"))("audit") };
}

type Search = { before?: string; actor?: string; kind?: string; from?: string; to?: string };

/** Every change to membership, roles, agents, invites, tokens, plans and workspace settings, as sentences. Admins only, checked here and in listAuditEvents. */
export default async function AuditPage({ searchParams }: { searchParams: Promise<Search> }) {
  const admin = await requirePageAdmin();
  const search = await searchParams;
  const kind = AUDIT_KINDS.find((candidate) => candidate === search.kind);
  const { admin: reads } = getRuntime().app;
  const t = await getTranslations("admin.audit");
  const title = (await getTranslations("admin.sections"))("audit");
  const [events, people] = await Promise.all([
    reads.auditLog({
      actor: admin,
      before: search.before,
      filter: { actorId: search.actor || undefined, kind, from: parseFilterDay(search.from), to: parseFilterDay(search.to, true) },
    }),
    reads.listPeople({ actor: admin }),
  ]);
  return (
    <section aria-label={title} className="flex flex-col gap-3">
      <h2 className="text-sm font-semibold">{title}</h2>
      <form className="flex flex-wrap items-end gap-3" aria-label={t("filter")} role="search">
        <label className="flex flex-col gap-1 text-sm">
          {t("who")}
          <select name="actor" defaultValue={search.actor ?? ""} className={inputClass}>
            <option value="">{t("anyone")}</option>
            {people.map((person) => (
              <option key={person.id} value={person.id}>
                {person.name} ({person.email})
              </option>
            ))}
          </select>
        </label>
        <label className="flex flex-col gap-1 text-sm">
          {t("about")}
          <select name="kind" defaultValue={kind ?? ""} className={inputClass}>
            <option value="">{t("everything")}</option>
            {AUDIT_KINDS.map((value) => (
              <option key={value} value={value}>
                {t(`kind.${value}`)}
              </option>
            ))}
          </select>
        </label>
        <DateRangeFilter from={search.from} to={search.to} />
      </form>
      {events.length === 0 ? (
        <p className="text-sm text-zinc-500">{search.actor || kind || search.from || search.to ? t("nothingMatches") : t("nothingYet")}</p>
      ) : null}
      <ol className="divide-y divide-zinc-200 text-sm dark:divide-zinc-800" aria-label={t("entries")}>
        {events.map((event) => (
          <li key={event.id} data-testid="audit-event" data-action={event.action} className="flex flex-col gap-0.5 py-2">
            <p>
              <time dateTime={event.at} className="mr-2 whitespace-nowrap text-xs text-zinc-500">
                {event.at.slice(0, 16).replace("T", " ")}
              </time>
              <span data-testid="audit-sentence">{renderAuditSentence(auditSentence(event), t)}</span>
            </p>
            <details className="text-xs text-zinc-600 dark:text-zinc-400">
              <summary className="w-fit cursor-pointer">{t("details")}</summary>
              {/* the raw record, ids included, for whoever needs to trace it */}
              <pre className="mt-1 overflow-x-auto whitespace-pre-wrap break-all rounded bg-zinc-100 p-2 font-mono dark:bg-zinc-900">
                {JSON.stringify(
                  {
                    action: event.action,
                    actor: event.actor ? { ...event.actor, kind: event.actorKind } : event.actorKind,
                    target: event.target,
                    conversation: event.conversation,
                    detail: event.detail,
                  },
                  null,
                  2,
                )}
              </pre>
            </details>
          </li>
        ))}
      </ol>
      {events.length === AUDIT_PAGE_SIZE ? (
        <Link className="text-sm text-accent hover:underline" href={filteredHref("/admin/audit", { ...search, before: events.at(-1)!.id })}>
          {t("older")}
        </Link>
      ) : null}
    </section>
  );
}
