import Link from "next/link";
import { inputClass } from "@/components/ui/field.tsx";
import { requirePageAdmin } from "@/server/auth/page-session.ts";
import { getRuntime } from "@/server/runtime.ts";
import { AUDIT_KINDS, AUDIT_PAGE_SIZE, type AuditKind } from "@/server/access/audit.ts";
import { auditSentence } from "@/server/services/audit-sentence.ts";
import { DateRangeFilter, filteredHref, parseFilterDay } from "@/components/admin/date-range-filter.tsx";

export const metadata = { title: "Audit log" };

type Search = { before?: string; actor?: string; kind?: string; from?: string; to?: string };

const KIND_LABEL: Record<AuditKind, string> = {
  member: "people in conversations",
  agent: "agents",
  invitation: "invitations to conversations",
  invite: "invite links",
  token: "API tokens",
  conversation: "conversations",
  plan: "accepted plans (fast-forwards)",
};

/** YYYY-MM-DD as the start of that day (UTC), or of the next day for an inclusive "to" */
/** Every change to membership, roles, agents, invites, tokens and accepted plans, as sentences. Admins only, checked here and in listAuditEvents. */
export default async function AuditPage({ searchParams }: { searchParams: Promise<Search> }) {
  const admin = await requirePageAdmin();
  const search = await searchParams;
  const kind = AUDIT_KINDS.find((candidate) => candidate === search.kind);
  const { admin: reads } = getRuntime().app;
  const [events, people] = await Promise.all([
    reads.auditLog({
      actor: admin,
      before: search.before,
      filter: { actorId: search.actor || undefined, kind, from: parseFilterDay(search.from), to: parseFilterDay(search.to, true) },
    }),
    reads.listPeople({ actor: admin }),
  ]);
  return (
    <section aria-label="Audit log" className="flex flex-col gap-3">
      <h2 className="text-sm font-semibold">Audit log</h2>
      <form className="flex flex-wrap items-end gap-3" aria-label="Filter the audit log" role="search">
        <label className="flex flex-col gap-1 text-sm">
          Who
          <select name="actor" defaultValue={search.actor ?? ""} className={inputClass}>
            <option value="">anyone</option>
            {people.map((person) => (
              <option key={person.id} value={person.id}>
                {person.name} ({person.email})
              </option>
            ))}
          </select>
        </label>
        <label className="flex flex-col gap-1 text-sm">
          About
          <select name="kind" defaultValue={kind ?? ""} className={inputClass}>
            <option value="">everything</option>
            {AUDIT_KINDS.map((value) => (
              <option key={value} value={value}>
                {KIND_LABEL[value]}
              </option>
            ))}
          </select>
        </label>
        <DateRangeFilter from={search.from} to={search.to} />
      </form>
      {events.length === 0 ? (
        <p className="text-sm text-zinc-500">
          Nothing recorded{search.actor || kind || search.from || search.to ? " that matches" : " yet"}.
        </p>
      ) : null}
      <ol className="divide-y divide-zinc-200 text-sm dark:divide-zinc-800" aria-label="Audit log entries">
        {events.map((event) => (
          <li key={event.id} data-testid="audit-event" data-action={event.action} className="flex flex-col gap-0.5 py-2">
            <p>
              <time dateTime={event.at} className="mr-2 whitespace-nowrap text-xs text-zinc-500">
                {event.at.slice(0, 16).replace("T", " ")}
              </time>
              <span data-testid="audit-sentence">{auditSentence(event)}</span>
            </p>
            <details className="text-xs text-zinc-600 dark:text-zinc-400">
              <summary className="w-fit cursor-pointer">details</summary>
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
          Older entries
        </Link>
      ) : null}
    </section>
  );
}
