"use client";
import { formText } from "./../form-text.ts";
import { useState, type FormEvent } from "react";
import type { AdminAgent, AgentInput } from "@/server/protocol/rest/admin.ts";
import { api } from "../api-client.ts";
import { Avatar } from "../ui/avatar.tsx";
import { Badge } from "../ui/badge.tsx";
import { Button } from "../ui/button.tsx";
import { ErrorText, TextAreaField, TextField, inputClass } from "../ui/field.tsx";

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
  updatedAt: "",
};

const splitList = (value: FormDataEntryValue | null) =>
  formText(value)
    .split(",")
    .map((item) => item.trim())
    .filter(Boolean);

/** `modelChoices`: the ids offered in the model field (offline and the configured `cli:` agents); any other id may be typed. */
export function AgentsEditor({ initialAgents, modelChoices = [] }: { initialAgents: AdminAgent[]; modelChoices?: string[] }) {
  const [agents, setAgents] = useState(initialAgents);
  const [editing, setEditing] = useState<AdminAgent | null>(null);

  return (
    <div className="grid gap-6 lg:grid-cols-[20rem_1fr]">
      <section aria-label="Agents">
        <div className="mb-2 flex items-center justify-between">
          <h2 className="text-lg font-semibold">Agents</h2>
          <Button size="sm" onClick={() => setEditing({ ...BLANK })}>
            + New agent
          </Button>
        </div>
        <ul className="divide-y divide-zinc-200 rounded-lg border border-zinc-200 dark:divide-zinc-800 dark:border-zinc-800">
          {agents.map((agent) => (
            <li key={agent.id}>
              <button
                type="button"
                onClick={() => setEditing(agent)}
                aria-current={editing?.id === agent.id ? "true" : undefined}
                className={`flex w-full items-center gap-2 px-3 py-2 text-left text-sm hover:bg-zinc-50 dark:hover:bg-zinc-900 ${editing?.id === agent.id ? "bg-zinc-100 dark:bg-zinc-900" : ""}`}
              >
                <Avatar name={agent.handle} kind="agent" size={28} />
                <span className="min-w-0 flex-1">
                  <span className="block font-medium">@{agent.handle}</span>
                  <span className="block truncate text-xs text-zinc-500">
                    {agent.name} · {agent.model}
                  </span>
                </span>
                {agent.role === "commander" ? <Badge tone="accent">commander</Badge> : null}
              </button>
            </li>
          ))}
        </ul>
      </section>
      {editing ? (
        <AgentForm
          modelChoices={modelChoices}
          key={editing.id || "new"}
          agent={editing}
          onSaved={(saved) => {
            setAgents((list) =>
              list.some((a) => a.id === saved.id) ? list.map((a) => (a.id === saved.id ? saved : a)) : [...list, saved],
            );
            setEditing(saved);
          }}
        />
      ) : (
        <p className="text-sm text-zinc-500">Choose an agent to edit, or create a new one.</p>
      )}
    </div>
  );
}

function AgentForm({ agent, onSaved, modelChoices }: { agent: AdminAgent; onSaved: (agent: AdminAgent) => void; modelChoices: string[] }) {
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
                ? `${model}: the program starts (${result.latencyMs} ms) and printed “${result.reply}”`
                : `${model} answered in ${result.latencyMs} ms: “${result.reply}”`,
            }
          : { state: "done", ok: false, text: result.error },
      );
    } catch (caught) {
      setTrial({ state: "done", ok: false, text: caught instanceof Error ? caught.message : "Could not test the model." });
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
    };
    setBusy(true);
    setError("");
    setSaved(false);
    try {
      const { agent: result } = agent.id ? await api.admin.updateAgent({ agentId: agent.id }, input) : await api.admin.createAgent(input);
      onSaved(result);
      setSaved(true);
    } catch (caught) {
      setError(caught instanceof Error ? caught.message : "Could not save.");
    } finally {
      setBusy(false);
    }
  }

  return (
    <form onSubmit={submit} aria-label={agent.id ? `Edit @${agent.handle}` : "New agent"} className="flex max-w-2xl flex-col gap-4">
      <h2 className="text-lg font-semibold">{agent.id ? `Edit @${agent.handle}` : "New agent"}</h2>
      <div className="grid gap-4 sm:grid-cols-2">
        <TextField
          label="Handle"
          name="handle"
          defaultValue={agent.handle}
          required
          pattern="[a-z0-9_\-]{1,40}"
          hint="What people type after @."
        />
        <TextField label="Name" name="name" defaultValue={agent.name} required maxLength={80} />
        <div className="flex flex-col gap-1">
          <label htmlFor="agent-role" className="text-sm font-medium">
            Role
          </label>
          <select id="agent-role" name="role" defaultValue={agent.role} className={inputClass}>
            <option value="sub_agent">sub-agent</option>
            <option value="commander">commander</option>
          </select>
        </div>
        <div className="flex flex-col gap-1">
          <TextField
            label="Model"
            name="model"
            defaultValue={agent.model}
            required
            list="agent-model-choices"
            hint={`offline, anthropic:…, openai:…, local:…${modelChoices.some((id) => id.startsWith("cli:")) ? ", or a command-line agent (cli:…)" : ""}`}
          />
          <datalist id="agent-model-choices">
            {modelChoices.map((id) => (
              <option key={id} value={id} />
            ))}
          </datalist>
          {modelChoices.length > 1 ? (
            <select
              aria-label="Choose a configured model"
              className={`${inputClass} w-auto`}
              value=""
              onChange={(event) => {
                const field = event.currentTarget.form?.elements.namedItem("model");
                if (field instanceof HTMLInputElement && event.currentTarget.value) field.value = event.currentTarget.value;
              }}
            >
              <option value="">Choose a configured model…</option>
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
              {trial.state === "testing" ? "Testing…" : "Test model"}
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
        <TextField label="Allowed tools" name="allowedTools" defaultValue={agent.allowedTools.join(", ")} hint="Comma-separated." />
        <TextField label="Skills" name="skills" defaultValue={agent.skills.join(", ")} hint="Comma-separated." />
        <TextField label="Concurrency limit" name="concurrency" type="number" min={1} max={256} defaultValue={agent.concurrency} required />
        <TextField
          label="Hedge model"
          name="hedgeModel"
          defaultValue={agent.hedgeModel ?? ""}
          hint="Optional. A step that runs longer than this agent usually takes races a twin on this model; the first to finish counts."
        />
      </div>
      <TextAreaField
        label="Description"
        name="description"
        defaultValue={agent.description}
        rows={2}
        placeholder="What this agent is good for, in a sentence or two. The commander reads it when it assigns steps."
      />
      <TextAreaField label="System prompt" name="systemPrompt" defaultValue={agent.systemPrompt} rows={10} />
      <ErrorText>{error}</ErrorText>
      {saved ? (
        <p role="status" className="text-sm text-emerald-600">
          Saved.
        </p>
      ) : null}
      <div>
        <Button type="submit" disabled={busy}>
          {busy ? "Saving…" : agent.id ? "Save changes" : "Create agent"}
        </Button>
      </div>
    </form>
  );
}
