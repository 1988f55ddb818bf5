"use client";
/**
 * Disable, enable and delete one agent. The server decides what is allowed (never the
 * commander; no deletion while runs of it are live) and says why when it refuses; the
 * buttons only spare an admin a request that cannot succeed. Deleting asks first.
 */
import { useState } from "react";
import { useTranslations } from "next-intl";
import type { AdminAgent } from "@/server/protocol/rest/admin.ts";
import { api } from "../api-client.ts";
import { useErrorText } from "../error-text.ts";
import { Button } from "../ui/button.tsx";
import { Dialog } from "../ui/dialog.tsx";
import { ErrorText } from "../ui/field.tsx";

export function AgentStateControls({
  agent,
  onChanged,
  onDeleted,
}: {
  agent: AdminAgent;
  onChanged: (agent: AdminAgent) => void;
  onDeleted: (agentId: string) => void;
}) {
  const t = useTranslations("admin.agents");
  const errorText = useErrorText();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState("");
  const [confirming, setConfirming] = useState(false);
  const isCommander = agent.role === "commander";

  async function act(work: () => Promise<void>) {
    setBusy(true);
    setError("");
    try {
      await work();
    } catch (caught) {
      setError(errorText(caught, t("actionFailed")));
    } finally {
      setBusy(false);
    }
  }

  const toggle = () =>
    act(async () => {
      const { agent: changed } = await api.admin.setAgentEnabled({ agentId: agent.id }, { enabled: agent.disabledAt !== null });
      onChanged(changed);
    });

  const remove = () =>
    act(async () => {
      setConfirming(false);
      await api.admin.deleteAgent({ agentId: agent.id });
      onDeleted(agent.id);
    });

  return (
    <section
      aria-label={t("stateTitle", { handle: agent.handle })}
      className="flex flex-col gap-2 rounded-lg border border-zinc-200 p-3 dark:border-zinc-800"
    >
      <p className="text-sm" data-testid="agent-state">
        {isCommander ? t("commanderState") : agent.disabledAt ? t("disabledState") : t("enabledState")}
      </p>
      {isCommander ? null : (
        <div className="flex flex-wrap gap-2">
          <Button variant="secondary" size="sm" disabled={busy} onClick={() => void toggle()}>
            {agent.disabledAt ? t("enable") : t("disable")}
          </Button>
          <Button variant="danger" size="sm" disabled={busy} onClick={() => setConfirming(true)}>
            {t("delete")}
          </Button>
        </div>
      )}
      <ErrorText>{error}</ErrorText>
      <Dialog open={confirming} onClose={() => setConfirming(false)} title={t("deleteQuestion", { handle: agent.handle })}>
        <div className="flex flex-col gap-3 p-4 text-sm">
          <p>{t("deleteExplained")}</p>
          <div className="flex justify-end gap-2">
            <Button variant="secondary" onClick={() => setConfirming(false)}>
              {t("cancel")}
            </Button>
            <Button variant="danger" disabled={busy} onClick={() => void remove()}>
              {t("deleteConfirm", { handle: agent.handle })}
            </Button>
          </div>
        </div>
      </Dialog>
    </section>
  );
}
