"use client";
/**
 * People and agents of a conversation with their roles. Owners (and admins) invite
 * people by email, withdraw invitations, remove people, make someone an owner, and
 * add or remove agents; everyone can leave. The list follows `members-changed` live, and so
 * does the store's roster (the composer's @-autocomplete, the header count) for every member.
 */
import { formText } from "../form-text.ts";
import { useCallback, useEffect, useId, useRef, useState, type FormEvent } from "react";
import { useRouter } from "next/navigation";
import { useTranslations } from "next-intl";
import type { MembersView } from "@/server/protocol/rest/members.ts";
import { api } from "../api-client.ts";
import { getSocket } from "../socket-client.ts";
import { useConversationStore } from "../stores/conversation-store.ts";
import { Avatar } from "../ui/avatar.tsx";
import { Badge } from "../ui/badge.tsx";
import { Button } from "../ui/button.tsx";
import { UsersIcon } from "../ui/icons.tsx";
import { PersonPicker } from "./person-picker.tsx";
import { Dialog } from "../ui/dialog.tsx";
import { ErrorText, inputClass } from "../ui/field.tsx";
import { useErrorText } from "../error-text.ts";

export function MembersButton({ conversationId, currentUserId }: { conversationId: string; currentUserId: string }) {
  const t = useTranslations("members");
  const errorText = useErrorText();
  const [open, setOpen] = useState(false);
  const [view, setView] = useState<MembersView | null>(null);
  const [error, setError] = useState("");
  const memberCount = useConversationStore((s) => s.members.length);

  // two changes in quick succession: only the answer to the last request is applied
  const latest = useRef(0);
  const load = useCallback(async () => {
    const request = ++latest.current;
    try {
      const next = await api.members.list({ conversationId });
      if (request !== latest.current) return;
      setView(next);
      // the composer's autocomplete and the header count follow the same list, for everyone in the conversation
      useConversationStore.getState().setRoster({ conversationId, agents: next.agents, members: next.people });
    } catch (caught) {
      if (request === latest.current) setError(errorText(caught, t("loadFailed")));
    }
  }, [conversationId, t, errorText]);

  useEffect(() => {
    const socket = getSocket();
    const onChange = (change: { conversationId: string }) => {
      if (change.conversationId === conversationId) void load();
    };
    // a change made while this tab was offline sends no event it could still receive: ask again on reconnect
    const onReconnect = () => void load();
    socket.on("members-changed", onChange);
    socket.on("connect", onReconnect);
    return () => {
      socket.off("members-changed", onChange);
      socket.off("connect", onReconnect);
    };
  }, [conversationId, load]);

  useEffect(() => {
    // eslint-disable-next-line react-hooks/set-state-in-effect -- opening the dialog is what asks for a fresh list
    if (open) void load();
  }, [open, load]);

  return (
    <>
      <Button variant="secondary" size="sm" onClick={() => setOpen(true)} aria-label={t("button")}>
        <UsersIcon size={16} /> {memberCount}
      </Button>
      <Dialog open={open} onClose={() => setOpen(false)} title={t("title")}>
        <ErrorText>{error}</ErrorText>
        {view ? (
          <MembersPanel conversationId={conversationId} currentUserId={currentUserId} view={view} reload={load} />
        ) : (
          <p className="text-sm text-zinc-500">{t("loading")}</p>
        )}
      </Dialog>
    </>
  );
}

function MembersPanel({
  conversationId,
  currentUserId,
  view,
  reload,
}: {
  conversationId: string;
  currentUserId: string;
  view: MembersView;
  reload: () => Promise<void>;
}) {
  const router = useRouter();
  const t = useTranslations("members");
  const errorText = useErrorText();
  const [error, setError] = useState("");
  const [notice, setNotice] = useState("");
  /** a new picker after each invitation: an empty field, no stale choices */
  const [pickerKey, setPickerKey] = useState(0);

  async function act(run: () => Promise<unknown>, done?: string) {
    setError("");
    setNotice("");
    try {
      await run();
      if (done) setNotice(done);
      await reload();
    } catch (caught) {
      setError(errorText(caught, t("actionFailed")));
    }
  }

  async function invite(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = event.currentTarget;
    const email = formText(new FormData(form).get("email"));
    await act(
      async () => {
        await api.members.invite({ conversationId }, { email });
        form.reset();
        setPickerKey((key) => key + 1);
      },
      t("invited", { email }),
    );
  }

  async function addAgent(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = event.currentTarget;
    const handle = formText(new FormData(form).get("handle"));
    await act(
      async () => {
        await api.members.addAgent({ conversationId }, { handle });
        form.reset();
      },
      t("agentAdded", { handle: handle.replace(/^@/, "") }),
    );
  }

  async function leave() {
    setError("");
    try {
      await api.members.remove({ conversationId, userId: currentUserId });
      router.push("/");
      router.refresh();
    } catch (caught) {
      setError(errorText(caught, t("leaveFailed")));
    }
  }

  const manage = view.you.canManage;
  const agentChoicesId = useId();
  return (
    <div className="flex flex-col gap-4">
      {manage ? (
        // the button beside the field, not under it: the suggestions open below the field
        // and must never lie over Invite (a click there would pick someone else)
        <form onSubmit={invite} className="flex items-end gap-2" aria-label={t("invitePerson")}>
          <div className="min-w-0 flex-1">
            <PersonPicker key={pickerKey} conversationId={conversationId} />
          </div>
          <Button type="submit">{t("invite")}</Button>
        </form>
      ) : null}
      <ErrorText>{error}</ErrorText>
      {notice ? (
        <p role="status" className="text-sm text-emerald-600">
          {notice}
        </p>
      ) : null}

      <section aria-label={t("people")}>
        <h3 className="mb-1 text-sm font-semibold">{t("people")}</h3>
        <ul className="space-y-1">
          {view.people.map((person) => (
            <li key={person.id} className="flex items-center gap-2 text-sm" data-testid="member" data-role={person.role}>
              <Avatar name={person.name} size={24} />
              <span className="min-w-0 flex-1 truncate">
                {person.name}
                {person.id === currentUserId ? <span className="text-zinc-500"> {t("you")}</span> : null}
              </span>
              <Badge tone={person.role === "owner" ? "accent" : "neutral"}>{t("role", { role: person.role })}</Badge>
              {manage && person.id !== currentUserId ? (
                <>
                  <Button
                    size="sm"
                    variant="ghost"
                    aria-label={
                      person.role === "owner" ? t("makeMemberLabel", { name: person.name }) : t("makeOwnerLabel", { name: person.name })
                    }
                    onClick={() =>
                      act(() =>
                        api.members.setRole({ conversationId, userId: person.id }, { role: person.role === "owner" ? "member" : "owner" }),
                      )
                    }
                  >
                    {person.role === "owner" ? t("makeMember") : t("makeOwner")}
                  </Button>
                  <Button
                    size="sm"
                    variant="ghost"
                    aria-label={t("removeLabel", { name: person.name })}
                    onClick={() =>
                      act(() => api.members.remove({ conversationId, userId: person.id }), t("removed", { name: person.name }))
                    }
                  >
                    {t("remove")}
                  </Button>
                </>
              ) : null}
            </li>
          ))}
        </ul>
      </section>

      {manage && view.invitations.length > 0 ? (
        <section aria-label={t("pending")}>
          <h3 className="mb-1 text-sm font-semibold">{t("pending")}</h3>
          <ul className="space-y-1">
            {view.invitations.map((invitation) => (
              <li key={invitation.id} className="flex items-center gap-2 text-sm" data-testid="pending-invitation">
                <span className="min-w-0 flex-1 truncate">{invitation.email}</span>
                <Button
                  size="sm"
                  variant="ghost"
                  aria-label={t("withdrawLabel", { email: invitation.email })}
                  onClick={() => act(() => api.members.revokeInvitation({ conversationId, invitationId: invitation.id }))}
                >
                  {t("withdraw")}
                </Button>
              </li>
            ))}
          </ul>
        </section>
      ) : null}

      <section aria-label={t("agents")}>
        <h3 className="mb-1 text-sm font-semibold">{t("agents")}</h3>
        <ul className="space-y-1">
          {view.agents.map((agent) => (
            <li key={agent.id} className="flex items-center gap-2 text-sm">
              <Avatar name={agent.handle} kind="agent" size={24} />
              <span className="min-w-0 flex-1 truncate">
                @{agent.handle} <span className="text-zinc-500">{agent.role === "commander" ? t("commander") : agent.name}</span>
              </span>
              {manage && agent.role !== "commander" ? (
                <Button
                  size="sm"
                  variant="ghost"
                  aria-label={t("removeLabel", { name: `@${agent.handle}` })}
                  onClick={() =>
                    act(() => api.members.removeAgent({ conversationId, agentId: agent.id }), t("removed", { name: `@${agent.handle}` }))
                  }
                >
                  {t("remove")}
                </Button>
              ) : null}
            </li>
          ))}
        </ul>
        {manage ? (
          <form onSubmit={addAgent} className="mt-2 flex items-end gap-2" aria-label={t("addAgentForm")}>
            <label className="flex min-w-0 flex-1 flex-col gap-1 text-sm">
              <span className="font-medium">{t("addAgentByHandle")}</span>
              <input
                name="handle"
                required
                pattern="@?[A-Za-z0-9_\-]{1,40}"
                placeholder="@writer"
                className={inputClass}
                list={agentChoicesId}
                autoComplete="off"
              />
              <AgentChoices id={agentChoicesId} present={view.agents.map((agent) => agent.handle)} />
            </label>
            <Button type="submit" size="sm" variant="secondary">
              {t("addAgent")}
            </Button>
          </form>
        ) : null}
      </section>

      <div className="border-t border-zinc-200 pt-3 dark:border-zinc-800">
        <Button variant="danger" size="sm" onClick={leave}>
          {t("leave")}
        </Button>
      </div>
    </div>
  );
}

/** The workspace's agents not in the conversation yet, offered while typing a handle. */
function AgentChoices({ id, present }: { id: string; present: string[] }) {
  const [agents, setAgents] = useState<{ handle: string; name: string }[]>([]);
  useEffect(() => {
    let live = true;
    api.account
      .agents()
      .then((answer) => live && setAgents(answer.agents))
      .catch(() => undefined); // the list is a convenience: typing a handle still works
    return () => {
      live = false;
    };
  }, []);
  return (
    <datalist id={id}>
      {agents
        .filter((agent) => !present.includes(agent.handle))
        .map((agent) => (
          <option key={agent.handle} value={agent.handle}>
            {agent.name}
          </option>
        ))}
    </datalist>
  );
}
