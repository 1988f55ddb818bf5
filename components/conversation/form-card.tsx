"use client";
import { useState, type FormEvent } from "react";
import { useTranslations } from "next-intl";
import { SECRET_MASK, type FormField } from "@/server/protocol/forms.ts";
import { api, ApiError } from "../api-client.ts";
import { useConversationStore } from "../stores/conversation-store.ts";
import { Button } from "../ui/button.tsx";
import { ErrorText, inputClass } from "../ui/field.tsx";
import type { FormDTO } from "@/server/protocol/dto.ts";
import { isTerminalPlan } from "@/server/protocol/statuses.ts";
import { answerProblems, readAnswer, serverProblems } from "./form-answer.ts";
import { useErrorText } from "../error-text.ts";

/** A blocked step's form, inline in the chat. Everyone sees it; the first valid answer wins. */
export function FormCard({ formId }: { formId: string }) {
  const t = useTranslations("form");
  const errorText = useErrorText();
  const form = useConversationStore((s) => s.forms[formId]);
  // the server leaves a step's form open when its plan ends (cancelled, aborted): an
  // answer then resumes nothing, so the form is shown closed instead of inviting one
  const planStatus = useConversationStore((s) => (form?.planId ? s.plans[form.planId]?.status : undefined));
  const step = useConversationStore((s) =>
    form?.planId && form.stepIndex !== null ? s.plans[form.planId]?.steps?.find((x) => x.index === form.stepIndex) : undefined,
  );
  const asker = useConversationStore((s) => s.messages.find((m) => m.formId === formId)?.author);
  const upsertForm = (next: FormDTO) => useConversationStore.setState((s) => ({ forms: { ...s.forms, [next.id]: next } }));
  const [problems, setProblems] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState(false);
  if (!form) return null;
  const planEnded = planStatus !== undefined && isTerminalPlan(planStatus);
  const open = form.status === "open" && !planEnded;
  const askedBy = asker?.handle
    ? `@${asker.handle}`
    : step && step.assignee !== "user"
      ? `@${step.assignee}`
      : (asker?.name ?? t("anAgent"));

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (!form) return;
    const element = event.currentTarget;
    const data = new FormData(element);
    const values = readAnswer(form.spec, (name) => {
      const raw = data.get(name);
      return typeof raw === "string" ? raw : null;
    });
    // the same rules the server applies, so a mistake is named beside its field before sending
    const found = answerProblems(form.spec, values);
    setProblems(found);
    if (Object.keys(found).length > 0) {
      focusFirstProblem(element, form.id, found);
      return;
    }
    setBusy(true);
    try {
      const { form: answered } = await api.conversations.answerForm({ conversationId: form.conversationId, formId: form.id }, { values });
      upsertForm(answered);
    } catch (caught) {
      const refused =
        caught instanceof ApiError && caught.code === "form_answer_invalid"
          ? serverProblems(form.spec, caught.message)
          : { "": errorText(caught, t("sendFailed")) };
      setProblems(refused);
      focusFirstProblem(element, form.id, refused);
    } finally {
      setBusy(false);
    }
  }

  return (
    <section
      data-testid="form-card"
      data-form-id={form.id}
      data-status={open || form.status !== "open" ? form.status : "closed"}
      aria-labelledby={`${form.id}-question`}
      className="mt-2 max-w-lg rounded-lg border border-amber-300 bg-amber-50/60 p-3 dark:border-amber-700/60 dark:bg-amber-950/20"
    >
      <p className="mb-1 text-xs text-zinc-600 dark:text-zinc-400" data-testid="form-asked-by">
        {t.rich(form.stepIndex !== null ? "asksForStep" : "asks", {
          who: askedBy,
          step: form.stepIndex ?? 0,
          strong: (chunks) => <strong className="font-semibold text-zinc-800 dark:text-zinc-200">{chunks}</strong>,
        })}
        {form.stepIndex !== null ? (
          <>
            {step ? (
              <>
                : <span data-testid="form-step-title">{step.title}</span>
              </>
            ) : null}
          </>
        ) : null}
      </p>
      <h3 id={`${form.id}-question`} className="mb-2 text-sm font-semibold" data-testid="form-question">
        {form.spec.title}
      </h3>
      {open ? (
        <form onSubmit={submit} noValidate className="flex flex-col gap-3">
          {form.spec.fields.map((field) => (
            <FieldInput
              key={field.name}
              formId={form.id}
              field={field}
              problem={problems[field.name]}
              onEdit={() => setProblems((old) => (old[field.name] ? { ...old, [field.name]: "" } : old))}
            />
          ))}
          <ErrorText>{problems[""]}</ErrorText>
          <div>
            <Button type="submit" size="sm" disabled={busy}>
              {busy ? t("sending") : t("send")}
            </Button>
          </div>
        </form>
      ) : form.answer ? (
        <div className="text-sm">
          <p data-testid="form-answered-by" className="mb-1 text-zinc-600 dark:text-zinc-400">
            {t.rich("answeredBy", { name: form.answer.by.name, strong: (chunks) => <strong>{chunks}</strong> })}
          </p>
          <dl className="grid grid-cols-[auto_1fr] gap-x-3 gap-y-1">
            {form.spec.fields.map((field) => (
              <div key={field.name} className="contents">
                <dt className="text-zinc-600 dark:text-zinc-400">{field.label}</dt>
                <dd className="whitespace-pre-wrap" data-secret={field.secret ? "true" : undefined}>
                  {field.secret ? formatSecret(form.answer?.values[field.name]) : formatValue(form.answer?.values[field.name])}
                </dd>
              </div>
            ))}
          </dl>
        </div>
      ) : (
        <p className="text-sm text-zinc-600 dark:text-zinc-400">{planEnded ? t("closedPlanEnded", { status: planStatus }) : t("closed")}</p>
      )}
    </section>
  );
}

/** Moves focus to the first field with a problem, so a keyboard or screen-reader user lands on it. */
function focusFirstProblem(element: HTMLFormElement, formId: string, problems: Record<string, string>) {
  const first = Object.keys(problems).find((name) => name !== "" && problems[name]);
  if (first) element.querySelector<HTMLElement>(`#${CSS.escape(`${formId}-${first}`)}`)?.focus();
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

function FieldInput({
  formId,
  field,
  problem,
  onEdit,
}: {
  formId: string;
  field: FormField;
  problem: string | undefined;
  onEdit: () => void;
}) {
  const t = useTranslations("form");
  const id = `${formId}-${field.name}`;
  const problemId = `${id}-problem`;
  const hintId = `${id}-hint`;
  const describedBy = [field.secret ? hintId : "", problem ? problemId : ""].filter(Boolean).join(" ") || undefined;
  const shared = {
    id,
    name: field.name,
    "aria-required": field.required,
    "aria-invalid": problem ? true : undefined,
    "aria-describedby": describedBy,
    onChange: onEdit,
  } as const;
  const requiredMark = field.required ? (
    <span className="text-red-700 dark:text-red-400" aria-hidden="true">
      {" "}
      *
    </span>
  ) : null;
  const message = problem ? (
    <p id={problemId} className="text-xs font-medium text-red-700 dark:text-red-400" data-testid="field-problem" data-field={field.name}>
      {field.label} {problem}
    </p>
  ) : null;
  const invalid = problem ? "border-red-500 dark:border-red-500" : "";
  if (field.type === "boolean") {
    return (
      <fieldset className="flex flex-col gap-1" aria-describedby={describedBy}>
        <legend className="text-sm font-medium">
          {field.label}
          {requiredMark}
        </legend>
        <div className="flex gap-4 text-sm" onChange={onEdit}>
          {(["yes", "no"] as const).map((choice, position) => (
            <label key={choice} className="flex items-center gap-1.5">
              <input id={position === 0 ? id : `${id}-${choice}`} type="radio" name={field.name} value={choice} />
              {choice === "yes" ? t("yes") : t("no")}
            </label>
          ))}
        </div>
        {message}
      </fieldset>
    );
  }
  return (
    <div className="flex flex-col gap-1">
      <label htmlFor={id} className="text-sm font-medium">
        {field.label}
        {requiredMark}
      </label>
      {field.secret ? (
        <span id={hintId} className="text-xs text-zinc-600 dark:text-zinc-400">
          {t("secretHint")}
        </span>
      ) : null}
      {field.type === "textarea" ? (
        <textarea {...shared} className={`${inputClass} ${invalid}`} rows={3} />
      ) : field.type === "select" ? (
        <select {...shared} className={`${inputClass} ${invalid}`} defaultValue="">
          <option value="">{t("choose")}</option>
          {(field.options ?? []).map((option) => (
            <option key={option} value={option}>
              {option}
            </option>
          ))}
        </select>
      ) : (
        <input
          {...shared}
          type={field.secret ? "password" : "text"}
          inputMode={field.type === "number" ? "decimal" : undefined}
          // a secret goes to the asking agent only: keep it out of the browser's autofill history too
          autoComplete={field.secret ? "off" : undefined}
          className={`${inputClass} ${invalid}`}
        />
      )}
      {message}
    </div>
  );
}
