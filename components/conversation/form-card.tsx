"use client";
import { useState, type FormEvent } from "react";
import { SECRET_MASK, type FormField } from "@/server/core/types.ts";
import { api } from "../api-client.ts";
import { useConversationStore } from "../stores/conversation-store.ts";
import { Button } from "../ui/button.tsx";
import { ErrorText, inputClass } from "../ui/field.tsx";
import type { FormDTO } from "@/server/protocol/dto.ts";

/** A blocked step's form, inline in the chat. Everyone sees it; the first valid answer wins. */
export function FormCard({ formId }: { formId: string }) {
  const form = useConversationStore((s) => s.forms[formId]);
  // the server leaves a step's form open when its plan ends (cancelled, aborted): an
  // answer then resumes nothing, so the form is shown closed instead of inviting one
  const planStatus = useConversationStore((s) => (form?.planId ? s.plans[form.planId]?.status : undefined));
  const upsertForm = (next: FormDTO) => useConversationStore.setState((s) => ({ forms: { ...s.forms, [next.id]: next } }));
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);
  if (!form) return null;
  const planEnded = planStatus === "completed" || planStatus === "partial" || planStatus === "failed" || planStatus === "cancelled";
  const open = form.status === "open" && !planEnded;

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (!form) return;
    const data = new FormData(event.currentTarget);
    const values: Record<string, string | number | boolean | null> = {};
    for (const field of form.spec.fields) {
      const raw = data.get(field.name);
      if (field.type === "boolean") values[field.name] = raw === "on";
      else if (field.type === "number") values[field.name] = raw === null || raw === "" ? null : Number(raw);
      else values[field.name] = typeof raw === "string" ? raw : null;
    }
    setBusy(true);
    setError("");
    try {
      const { form: answered } = await api.conversations.answerForm({ conversationId: form.conversationId, formId: form.id }, { values });
      upsertForm(answered);
    } catch (caught) {
      setError(caught instanceof Error ? caught.message : "Could not send the answer.");
    } finally {
      setBusy(false);
    }
  }

  return (
    <section
      data-testid="form-card"
      data-form-id={form.id}
      data-status={open || form.status !== "open" ? form.status : "closed"}
      aria-label={`Form: ${form.spec.title}`}
      className="mt-2 max-w-lg rounded-lg border border-amber-300 bg-amber-50/60 p-3 dark:border-amber-700/60 dark:bg-amber-950/20"
    >
      <h3 className="mb-2 text-sm font-semibold">
        {form.spec.title}
        {form.stepIndex ? <span className="ml-2 text-xs font-normal text-zinc-500">step {form.stepIndex}</span> : null}
      </h3>
      {open ? (
        <form onSubmit={submit} className="flex flex-col gap-3">
          {form.spec.fields.map((field) => (
            <FieldInput key={field.name} formId={form.id} field={field} />
          ))}
          <ErrorText>{error}</ErrorText>
          <div>
            <Button type="submit" size="sm" disabled={busy}>
              {busy ? "Sending…" : "Send answer"}
            </Button>
          </div>
        </form>
      ) : form.answer ? (
        <div className="text-sm">
          <p data-testid="form-answered-by" className="mb-1 text-zinc-600 dark:text-zinc-400">
            Answered by <strong>{form.answer.by.name}</strong>
          </p>
          <dl className="grid grid-cols-[auto_1fr] gap-x-3 gap-y-1">
            {form.spec.fields.map((field) => (
              <div key={field.name} className="contents">
                <dt className="text-zinc-500">{field.label}</dt>
                <dd className="whitespace-pre-wrap" data-secret={field.secret ? "true" : undefined}>
                  {field.secret ? formatSecret(form.answer?.values[field.name]) : formatValue(form.answer?.values[field.name])}
                </dd>
              </div>
            ))}
          </dl>
        </div>
      ) : (
        <p className="text-sm text-zinc-500">{planEnded ? `This form was closed: the plan is ${planStatus}.` : "This form was closed."}</p>
      )}
    </section>
  );
}

/** The server never sends a secret's value; whatever arrives, only say whether one was given. */
function formatSecret(value: unknown): string {
  return value === null || value === undefined || value === "" ? "—" : SECRET_MASK;
}

function formatValue(value: unknown): string {
  if (value === null || value === undefined || value === "") return "—";
  if (typeof value === "boolean") return value ? "yes" : "no";
  return typeof value === "string" || typeof value === "number" ? String(value) : JSON.stringify(value);
}

function FieldInput({ formId, field }: { formId: string; field: FormField }) {
  const id = `${formId}-${field.name}`;
  const label = (
    <label htmlFor={id} className="text-sm font-medium">
      {field.label}
      {field.required ? <span className="text-red-600"> *</span> : null}
    </label>
  );
  if (field.type === "boolean") {
    return (
      <div className="flex items-center gap-2">
        <input id={id} name={field.name} type="checkbox" />
        {label}
      </div>
    );
  }
  return (
    <div className="flex flex-col gap-1">
      {label}
      {field.secret ? (
        <span className="text-xs text-zinc-500">Secret: only the agent that asked receives it; everyone else sees ••••.</span>
      ) : null}
      {field.type === "textarea" ? (
        <textarea id={id} name={field.name} required={field.required} className={inputClass} rows={3} />
      ) : field.type === "select" ? (
        <select id={id} name={field.name} required={field.required} className={inputClass} defaultValue="">
          <option value="" disabled>
            Choose…
          </option>
          {(field.options ?? []).map((option) => (
            <option key={option} value={option}>
              {option}
            </option>
          ))}
        </select>
      ) : (
        <input
          id={id}
          name={field.name}
          type={field.secret ? "password" : field.type === "number" ? "number" : "text"}
          // a secret goes to the asking agent only: keep it out of the browser's autofill history too
          autoComplete={field.secret ? "off" : undefined}
          required={field.required}
          className={inputClass}
        />
      )}
    </div>
  );
}
