"use client";
import { useState, useSyncExternalStore } from "react";
import { api } from "../api-client.ts";
import { Badge } from "../ui/badge.tsx";
import { Button } from "../ui/button.tsx";
import { ErrorText, inputClass } from "../ui/field.tsx";

interface InviteRow {
  id: string;
  token: string;
  role: string;
  used: boolean;
  expiresAt: string;
}

const noChanges = () => () => {};

export function InvitesPanel({ invites: initial }: { invites: InviteRow[] }) {
  const [invites, setInvites] = useState(initial);
  const [role, setRole] = useState<"member" | "admin">("member");
  const [error, setError] = useState("");
  // the links show this site's address, known only in the browser
  const origin = useSyncExternalStore(
    noChanges,
    () => window.location.origin,
    () => "",
  );
  const link = (token: string) => `${origin}/sign-up?invite=${token}`;

  async function create() {
    setError("");
    try {
      const { invite } = await api.admin.createInvite({ role });
      setInvites((list) => [
        { id: invite.token, token: invite.token, role: invite.role, used: false, expiresAt: invite.expiresAt },
        ...list,
      ]);
    } catch (caught) {
      setError(caught instanceof Error ? caught.message : "Could not create an invite.");
    }
  }

  return (
    <div className="flex max-w-3xl flex-col gap-4">
      <h2 className="text-lg font-semibold">Invite links</h2>
      <p className="text-sm text-zinc-600 dark:text-zinc-400">
        After the first account, people join only through an invite link. Each link works once and expires after 7 days.
      </p>
      <div className="flex items-end gap-2">
        <label className="flex flex-col gap-1 text-sm">
          Role
          <select value={role} onChange={(event) => setRole(event.target.value === "admin" ? "admin" : "member")} className={inputClass}>
            <option value="member">member</option>
            <option value="admin">admin</option>
          </select>
        </label>
        <Button onClick={create}>Create invite link</Button>
      </div>
      <ErrorText>{error}</ErrorText>
      <ul
        className="divide-y divide-zinc-200 rounded-lg border border-zinc-200 dark:divide-zinc-800 dark:border-zinc-800"
        data-testid="invite-list"
      >
        {invites.map((invite) => (
          <li key={invite.id} className="flex flex-wrap items-center gap-2 px-3 py-2 text-sm">
            <input
              readOnly
              value={link(invite.token)}
              aria-label="Invite link"
              className={`${inputClass} min-w-0 flex-1 font-mono text-xs`}
              data-testid="invite-link"
              onFocus={(e) => e.currentTarget.select()}
            />
            <Badge tone={invite.role === "admin" ? "accent" : "neutral"}>{invite.role}</Badge>
            {invite.used ? <Badge tone="zinc">used</Badge> : <Badge tone="green">open</Badge>}
            <Button size="sm" variant="secondary" onClick={() => navigator.clipboard?.writeText(link(invite.token))}>
              Copy
            </Button>
          </li>
        ))}
      </ul>
    </div>
  );
}
