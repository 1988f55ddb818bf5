"use client";
/**
 * Invite links: create one, copy it, and revoke an unused one (after a second, explicit
 * click). Each link says what became of it: open, used, expired or revoked; only an open
 * link shows its address.
 */
import { useState, useSyncExternalStore } from "react";
import { useTranslations } from "next-intl";
import type { AdminInvite, InviteState } from "@/server/protocol/rest/admin.ts";
import { api } from "../api-client.ts";
import { Badge, type Tone } from "../ui/badge.tsx";
import { Button } from "../ui/button.tsx";
import { ErrorText, inputClass } from "../ui/field.tsx";
import { useErrorText } from "../error-text.ts";

const noChanges = () => () => {};

const STATE_TONE: Record<InviteState, Tone> = { open: "green", used: "zinc", expired: "zinc", revoked: "red" };

export function InvitesPanel({ invites: initial }: { invites: AdminInvite[] }) {
  const t = useTranslations("admin.invites");
  const errorText = useErrorText();
  const [invites, setInvites] = useState(initial);
  const [role, setRole] = useState<"member" | "admin">("member");
  const [confirming, setConfirming] = useState<string | null>(null);
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
        {
          id: invite.id,
          token: invite.token,
          role: invite.role,
          state: "open",
          createdAt: new Date().toISOString(),
          expiresAt: invite.expiresAt,
        },
        ...list,
      ]);
    } catch (caught) {
      setError(errorText(caught, t("createFailed")));
    }
  }

  async function revoke(id: string) {
    setError("");
    try {
      const { invite } = await api.admin.revokeInvite({ inviteId: id });
      setInvites((list) => list.map((row) => (row.id === id ? { ...row, state: invite.state } : row)));
      setConfirming(null);
    } catch (caught) {
      setError(errorText(caught, t("revokeFailed")));
    }
  }

  return (
    <div className="flex max-w-3xl flex-col gap-4">
      <h2 className="text-lg font-semibold">{t("title")}</h2>
      <p className="text-sm text-zinc-600 dark:text-zinc-400">{t("intro")}</p>
      <div className="flex items-end gap-2">
        <label className="flex flex-col gap-1 text-sm">
          {t("role")}
          <select value={role} onChange={(event) => setRole(event.target.value === "admin" ? "admin" : "member")} className={inputClass}>
            <option value="member">{t("roleName", { role: "member" })}</option>
            <option value="admin">{t("roleName", { role: "admin" })}</option>
          </select>
        </label>
        <Button onClick={create}>{t("create")}</Button>
      </div>
      <ErrorText>{error}</ErrorText>
      <ul
        className="divide-y divide-zinc-200 rounded-lg border border-zinc-200 dark:divide-zinc-800 dark:border-zinc-800"
        data-testid="invite-list"
      >
        {invites.length === 0 ? <li className="px-3 py-2 text-sm text-zinc-500">{t("none")}</li> : null}
        {invites.map((invite) => {
          const about = { role: invite.role, created: invite.createdAt.slice(0, 16).replace("T", " ") };
          return (
            <li
              key={invite.id}
              className="flex flex-wrap items-center gap-2 px-3 py-2 text-sm"
              data-testid="invite"
              data-state={invite.state}
            >
              {invite.state === "open" ? (
                <input
                  readOnly
                  value={link(invite.token)}
                  aria-label={t("linkField")}
                  className={`${inputClass} min-w-0 flex-1 font-mono text-xs`}
                  data-testid="invite-link"
                  onFocus={(e) => e.currentTarget.select()}
                />
              ) : (
                <span className="min-w-0 flex-1 text-xs text-zinc-500">{t("label", about)}</span>
              )}
              <Badge tone={invite.role === "admin" ? "accent" : "neutral"}>{t("roleName", { role: invite.role })}</Badge>
              <Badge tone={STATE_TONE[invite.state]}>{t("state", { state: invite.state })}</Badge>
              {invite.state !== "open" ? null : confirming === invite.id ? (
                <span className="flex items-center gap-1" role="group" aria-label={t("revokeQuestion")}>
                  <Button size="sm" variant="danger" onClick={() => revoke(invite.id)}>
                    {t("revokeForGood")}
                  </Button>
                  <Button size="sm" variant="ghost" onClick={() => setConfirming(null)}>
                    {t("keep")}
                  </Button>
                </span>
              ) : (
                <>
                  <Button size="sm" variant="secondary" onClick={() => navigator.clipboard?.writeText(link(invite.token))}>
                    {t("copy")}
                  </Button>
                  <Button size="sm" variant="secondary" onClick={() => setConfirming(invite.id)} aria-label={t("revokeLabel", about)}>
                    {t("revoke")}
                  </Button>
                </>
              )}
            </li>
          );
        })}
      </ul>
    </div>
  );
}
