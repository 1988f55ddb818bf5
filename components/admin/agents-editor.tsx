"use client";
import { formText } from "./../form-text.ts";
import { useState, type FormEvent } from "react";
import { useTranslations } from "next-intl";
import type { AdminAgent, AgentInput } from "@/server/protocol/rest/admin.ts";
import { api } from "../api-client.ts";
import { useErrorText } from "../error-text.ts";
import { Avatar } from "../ui/avatar.tsx";
import { Badge } from "../ui/badge.tsx";
import { Button } from "../ui/button.tsx";
import { ErrorText, TextAreaField, TextField, inputClass } from "../ui/field.tsx";
import { AgentStateControls } from "./agent-state-controls.tsx";

const BLANK: AdminAgent = {
  id: "",
  handle: "",
  name: "",
  role: "sub_agent",
  description: "",
  systemPrompt: "",
  model: "offline",
  allowedTools: [],
  skills: [],
  concurrency: 4,
  hedgeModel: null,
  escalationModel: null,
  updatedAt: "",
  disabledAt: null,
};

const splitList = (value: FormDataEntryValue | null) =>
  formText(value)
    .split(",")
    .map((item) => item.trim())
    .filter(Boolean);

/** `modelChoices`: the ids offered in the model field (offline and the configured `cli:` agents); any other id may be typed. */
export function AgentsEditor({ initialAgents, modelChoices = [] }: { initialAgents: AdminAgent[]; modelChoices?: string[] }) {
  const t = useTranslations("admin.agents");
  const [agents, setAgents] = useState(initialAgents);
  const [editing, setEditing] = useState<AdminAgent | null>(null);
  const saved = (agent: AdminAgent) => {
    setAgents((list) => (list.some((a) => a.id === agent.id) ? list.map((a) => (a.id === agent.id ? agent : a)) : [...list, agent]));
    setEditing(agent);
  };

  return (
    <div className="grid gap-6 lg:grid-cols-[20rem_1fr]">
      <section aria-label={t("title")}>
        <div className="mb-2 flex items-center justify-between">
          <h2 className="text-lg font-semibold">{t("title")}</h2>
          <Button size="sm" onClick={() => setEditing({ ...BLANK })}>
            {t("new")}
          </Button>
        </div>
        <ul className="divide-y divide-zinc-200 rounded-lg border border-zinc-200 dark:divide-zinc-800 dark:border-zinc-800">
          {agents.map((agent) => (
            <li key={agent.id}>
              <button
                type="button"
                onClick={() => setEditing(agent)}
                aria-current={editing?.id === agent.id ? "true" : undefined}
                data-disabled={agent.disabledAt ? "true" : undefined}
                className={`flex w-full items-center gap-2 px-3 py-2 text-left text-sm hover:bg-zinc-50 dark:hover:bg-zinc-900 ${editing?.id === agent.id ? "bg-zinc-100 dark:bg-zinc-900" : ""} ${agent.disabledAt ? "text-zinc-500 dark:text-zinc-400" : ""}`}
              >
                {/* greyed, not faded: a faded label would fail contrast */}
                <span className={agent.disabledAt ? "grayscale" : undefined}>
                  <Avatar name={agent.handle} kind="agent" size={28} />
                </span>
                <span className="min-w-0 flex-1">
                  <span className="block font-medium">@{agent.handle}</span>
                  <span className="block truncate text-xs text-zinc-500">
                    {agent.name} · {agent.model}
                  </span>
                </span>
                {agent.role === "commander" ? <Badge tone="accent">{t("commander")}</Badge> : null}
                {agent.disabledAt ? <Badge tone="zinc">{t("disabled")}</Badge> : null}
              </button>
            </li>
          ))}
        </ul>
      </section>
      {editing ? (
        <div className="flex max-w-2xl flex-col gap-4">
          {editing.id ? (
            <AgentStateControls
              key={`state-${editing.id}`}
              agent={editing}
              onChanged={saved}
              onDeleted={(id) => {
                setAgents((list) => list.filter((a) => a.id !== id));
                setEditing(null);
              }}
            />
          ) : null}
          <AgentForm modelChoices={modelChoices} key={editing.id || "new"} agent={editing} onSaved={saved} />
        </div>
      ) : (
        <p className="text-sm text-zinc-500">{t("choose")}</p>
      )}
    </div>
  );
}

function AgentForm({ agent, onSaved, modelChoices }: { agent: AdminAgent; onSaved: (agent: AdminAgent) => void; modelChoices: string[] }) {
  const t = useTranslations("admin.agents");
  const errorText = useErrorText();
  const [error, setError] = useState("");
  const [saved, setSaved] = useState(false);
  const [busy, setBusy] = useState(false);
  const [trial, setTrial] = useState<{ state: "idle" | "testing" } | { state: "done"; ok: boolean; text: string }>({ state: "idle" });

  async function testModel(form: HTMLFormElement | null) {
    const model = form ? formText(new FormData(form).get("model")).trim() : "";
    if (!model) return;
    setTrial({ state: "testing" });
    try {
      const result = await api.admin.testModel({ model });
      setTrial(
        result.ok
          ? {
              state: "done",
              ok: true,
              text: model.startsWith("cli:")
                ? t("cliStarted", { model, ms: result.latencyMs, reply: result.reply })
                : t("modelAnswered", { model, ms: result.latencyMs, reply: result.reply }),
            }
          : { state: "done", ok: false, text: result.error },
      );
    } catch (caught) {
      setTrial({ state: "done", ok: false, text: errorText(caught, t("testFailed")) });
    }
  }

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    const input: AgentInput = {
      handle: formText(data.get("handle")).trim(),
      name: formText(data.get("name")),
      role: data.get("role") === "commander" ? "commander" : "sub_agent",
      description: formText(data.get("description")).trim(),
      systemPrompt: formText(data.get("systemPrompt")),
      model: formText(data.get("model")),
      allowedTools: splitList(data.get("allowedTools")),
      skills: splitList(data.get("skills")),
      concurrency: Number(data.get("concurrency")),
      hedgeModel: formText(data.get("hedgeModel")).trim() || null,
      escalationModel: formText(data.get("escalationModel")).trim() || null,
    };
    setBusy(true);
    setError("");
    setSaved(false);
    try {
      const { agent: result } = agent.id ? await api.admin.updateAgent({ agentId: agent.id }, input) : await api.admin.createAgent(input);
      onSaved(result);
      setSaved(true);
    } catch (caught) {
      setError(errorText(caught, t("saveFailed")));
    } finally {
      setBusy(false);
    }
  }

  return (
    <form onSubmit={submit} aria-label={agent.id ? t("edit", { handle: agent.handle }) : t("newTitle")} className="flex flex-col gap-4">
      <h2 className="text-lg font-semibold">{agent.id ? t("edit", { handle: agent.handle }) : t("newTitle")}</h2>
      <div className="grid gap-4 sm:grid-cols-2">
        <TextField
          label={t("handle")}
          name="handle"
          defaultValue={agent.handle}
          required
          pattern="[a-z0-9_\-]{1,40}"
          hint={t("handleHint")}
        />
        <TextField label={t("name")} name="name" defaultValue={agent.name} required maxLength={80} />
        <div className="flex flex-col gap-1">
          <label htmlFor="agent-role" className="text-sm font-medium">
            {t("role")}
          </label>
          <select id="agent-role" name="role" defaultValue={agent.role} className={inputClass}>
            <option value="sub_agent">{t("subAgent")}</option>
            <option value="commander">{t("commander")}</option>
          </select>
        </div>
        <div className="flex flex-col gap-1">
          <TextField
            label={t("model")}
            name="model"
            defaultValue={agent.model}
            required
            list="agent-model-choices"
            hint={modelChoices.some((id) => id.startsWith("cli:")) ? t("modelHintCli") : t("modelHint")}
          />
          <datalist id="agent-model-choices">
            {modelChoices.map((id) => (
              <option key={id} value={id} />
            ))}
          </datalist>
          {modelChoices.length > 1 ? (
            <select
              aria-label={t("chooseModel")}
              className={`${inputClass} w-auto`}
              value=""
              onChange={(event) => {
                const field = event.currentTarget.form?.elements.namedItem("model");
                if (field instanceof HTMLInputElement && event.currentTarget.value) field.value = event.currentTarget.value;
              }}
            >
              <option value="">{t("chooseModelOption")}</option>
              {modelChoices.map((id) => (
                <option key={id} value={id}>
                  {id}
                </option>
              ))}
            </select>
          ) : null}
          <div className="flex items-center gap-2">
            <Button
              type="button"
              variant="secondary"
              size="sm"
              disabled={trial.state === "testing"}
              onClick={(event) => void testModel(event.currentTarget.form)}
            >
              {trial.state === "testing" ? t("testing") : t("testModel")}
            </Button>
            {trial.state === "done" ? (
              <span
                role="status"
                data-testid="model-test"
                className={`text-xs ${trial.ok ? "text-emerald-700 dark:text-emerald-400" : "text-red-700 dark:text-red-400"}`}
              >
                {trial.text}
              </span>
            ) : null}
          </div>
        </div>
        <TextField label={t("allowedTools")} name="allowedTools" defaultValue={agent.allowedTools.join(", ")} hint={t("commaSeparated")} />
        <TextField label={t("skills")} name="skills" defaultValue={agent.skills.join(", ")} hint={t("commaSeparated")} />
        <TextField label={t("concurrency")} name="concurrency" type="number" min={1} max={256} defaultValue={agent.concurrency} required />
        <TextField label={t("hedgeModel")} name="hedgeModel" defaultValue={agent.hedgeModel ?? ""} hint={t("hedgeModelHint")} />
        <TextField
          label={t("escalationModel")}
          name="escalationModel"
          defaultValue={agent.escalationModel ?? ""}
          hint={t("escalationModelHint")}
        />
      </div>
      <TextAreaField
        label={t("description")}
        name="description"
        defaultValue={agent.description}
        rows={2}
        placeholder={t("descriptionPlaceholder")}
      />
      <TextAreaField label={t("systemPrompt")} name="systemPrompt" defaultValue={agent.systemPrompt} rows={10} />
      <ErrorText>{error}</ErrorText>
      {saved ? (
        <p role="status" className="text-sm text-emerald-600">
          {t("saved")}
        </p>
      ) : null}
      <div>
        <Button type="submit" disabled={busy}>
          {busy ? t("saving") : agent.id ? t("save") : t("create")}
        </Button>
      </div>
    </form>
  );
}
