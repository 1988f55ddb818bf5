"use client";
import { formText } from "./form-text.ts";
import { useRouter } from "next/navigation";
import { useEffect, useState, type FormEvent } from "react";
import { useTranslations } from "next-intl";
import { api } from "./api-client.ts";
import { Button } from "./ui/button.tsx";
import { Dialog } from "./ui/dialog.tsx";
import { ErrorText, TextField } from "./ui/field.tsx";
import { Badge } from "./ui/badge.tsx";
import { useErrorText } from "./error-text.ts";

type AgentOption = Awaited<ReturnType<typeof api.account.agents>>["agents"][number];

export function NewConversationButton({ label, full = false }: { label: string; full?: boolean }) {
  const [open, setOpen] = useState(false);
  const t = useTranslations("newConversation");
  return (
    <>
      <Button onClick={() => setOpen(true)} className={full ? "w-full" : ""}>
        + {label}
      </Button>
      <Dialog open={open} onClose={() => setOpen(false)} title={t("title")}>
        <NewConversationForm onDone={() => setOpen(false)} />
      </Dialog>
    </>
  );
}

function NewConversationForm({ onDone }: { onDone: () => void }) {
  const router = useRouter();
  const t = useTranslations("newConversation");
  const errorText = useErrorText();
  const [agents, setAgents] = useState<AgentOption[] | null>(null);
  const [chosen, setChosen] = useState<Set<string>>(new Set());
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    api.account
      .agents()
      .then(({ agents }) => {
        setAgents(agents);
        setChosen(new Set(agents.map((a) => a.handle)));
      })
      .catch((caught: unknown) => setError(errorText(caught, String(caught))));
  }, [errorText]);

  function toggle(handle: string) {
    const next = new Set(chosen);
    if (next.has(handle)) next.delete(handle);
    else next.add(handle);
    setChosen(next);
  }

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const title = formText(new FormData(event.currentTarget).get("title"));
    setBusy(true);
    setError("");
    try {
      const { id } = await api.conversations.create({ title, agentHandles: [...chosen] });
      onDone();
      router.push(`/c/${id}`);
      router.refresh();
    } catch (caught) {
      setError(errorText(caught, t("failed")));
    } finally {
      setBusy(false);
    }
  }

  return (
    <form onSubmit={submit} className="flex flex-col gap-4" aria-label={t("title")}>
      <TextField label={t("titleField")} name="title" required maxLength={120} placeholder={t("titlePlaceholder")} autoFocus />
      <fieldset className="flex flex-col gap-1">
        <legend className="mb-1 text-sm font-medium">{t("agents")}</legend>
        {agents === null ? <p className="text-sm text-zinc-500">{t("loadingAgents")}</p> : null}
        {agents?.map((agent) => (
          <label key={agent.id} className="flex items-center gap-2 rounded px-1 py-1 text-sm hover:bg-zinc-50 dark:hover:bg-zinc-800">
            <input
              type="checkbox"
              checked={chosen.has(agent.handle) || agent.role === "commander"}
              disabled={agent.role === "commander"}
              onChange={() => toggle(agent.handle)}
            />
            <span className="font-medium">@{agent.handle}</span>
            <span className="text-zinc-500">{agent.name}</span>
            {agent.role === "commander" ? <Badge tone="accent">{t("commander")}</Badge> : null}
          </label>
        ))}
      </fieldset>
      <ErrorText>{error}</ErrorText>
      <div className="flex justify-end gap-2">
        <Button variant="secondary" onClick={onDone}>
          {t("cancel")}
        </Button>
        <Button type="submit" disabled={busy}>
          {busy ? t("creating") : t("create")}
        </Button>
      </div>
    </form>
  );
}
