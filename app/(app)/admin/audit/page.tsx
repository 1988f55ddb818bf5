import Link from "next/link";
import { requirePageAdmin } from "@/server/auth/page-session.ts";
import { getRuntime } from "@/server/runtime.ts";
import { AUDIT_PAGE_SIZE, listAuditEvents } from "@/server/access/audit.ts";

export const metadata = { title: "Audit log" };

/** Who changed membership, roles, agents, invites and tokens. Admins only, checked here and in listAuditEvents. */
export default async function AuditPage({ searchParams }: { searchParams: Promise<{ before?: string }> }) {
  const admin = await requirePageAdmin();
  const { before } = await searchParams;
  const events = await listAuditEvents(getRuntime().prisma, { actor: admin, before });
  return (
    <section aria-label="Audit log" className="flex flex-col gap-3">
      <h2 className="text-sm font-semibold">Audit log</h2>
      {events.length === 0 ? <p className="text-sm text-zinc-500">Nothing recorded yet.</p> : null}
      {/* a wide table scrolls sideways; keyboard users reach the scroll with Tab */}
      <div className="overflow-x-auto" tabIndex={0} role="region" aria-label="Audit log entries">
        <table className="w-full text-left text-sm">
          <thead className="text-xs uppercase text-zinc-500">
            <tr>
              <th className="py-1 pr-3">When</th>
              <th className="py-1 pr-3">Who</th>
              <th className="py-1 pr-3">What</th>
              <th className="py-1 pr-3">Target</th>
              <th className="py-1 pr-3">Conversation</th>
              <th className="py-1">Detail</th>
            </tr>
          </thead>
          <tbody className="divide-y divide-zinc-200 dark:divide-zinc-800">
            {events.map((event) => (
              <tr key={event.id} data-testid="audit-event" data-action={event.action}>
                <td className="whitespace-nowrap py-1 pr-3">{new Date(event.at).toLocaleString()}</td>
                <td className="py-1 pr-3">
                  {event.actor ? `${event.actor.name} <${event.actor.email}>` : "system"}
                  {event.actorKind === "token" ? <span className="text-zinc-500"> (API token)</span> : null}
                </td>
                <td className="py-1 pr-3 font-mono text-xs">{event.action}</td>
                <td className="py-1 pr-3">{event.target.label ?? `${event.target.kind} ${event.target.id}`}</td>
                <td className="py-1 pr-3">{event.conversation?.title ?? "—"}</td>
                <td className="py-1 font-mono text-xs text-zinc-500">{JSON.stringify(event.detail)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {events.length === AUDIT_PAGE_SIZE ? (
        <Link className="text-sm text-accent hover:underline" href={`/admin/audit?before=${events.at(-1)!.id}`}>
          Older entries
        </Link>
      ) : null}
    </section>
  );
}
