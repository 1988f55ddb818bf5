"use client";
import { useState, type FormEvent } from "react";
import { useTranslations } from "next-intl";
import type { EffortModelsInput as EffortModels } from "@/server/protocol/rest/admin.ts";
import { formText } from "../form-text.ts";
import { api } from "../api-client.ts";
import { useErrorText } from "../error-text.ts";
import { Button } from "../ui/button.tsx";
import { ErrorText, TextField } from "../ui/field.tsx";

/**
 * Admin → Providers: the model each effort level runs on. A step the commander marks
 * light or deep runs there; an empty level (and standard, always) on the agent's own.
 */
export function EffortModelsForm({ initial }: { initial: EffortModels }) {
  const t = useTranslations("admin.effortModels");
  const errorText = useErrorText();
  const [error, setError] = useState("");
  const [saved, setSaved] = useState(false);
  const [busy, setBusy] = useState(false);

  async function save(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    const light = formText(data.get("light")).trim();
    const deep = formText(data.get("deep")).trim();
    setBusy(true);
    setError("");
    setSaved(false);
    try {
      await api.admin.setEffortModels({ ...(light ? { light } : {}), ...(deep ? { deep } : {}) });
      setSaved(true);
    } catch (caught) {
      setError(errorText(caught, t("saveFailed")));
    } finally {
      setBusy(false);
    }
  }

  return (
    <section aria-labelledby="effort-models-title" className="space-y-2" data-testid="effort-models">
      <h2 id="effort-models-title" className="text-sm font-semibold">
        {t("title")}
      </h2>
      <p className="text-sm text-zinc-600 dark:text-zinc-400">{t("intro")}</p>
      <form onSubmit={save} className="grid max-w-2xl gap-3 sm:grid-cols-2">
        <TextField label={t("light")} name="light" defaultValue={initial.light ?? ""} placeholder={t("placeholder")} />
        <TextField label={t("deep")} name="deep" defaultValue={initial.deep ?? ""} placeholder={t("placeholder")} />
        <div className="flex items-center gap-3 sm:col-span-2">
          <Button type="submit" size="sm" disabled={busy}>
            {t("save")}
          </Button>
          {saved ? (
            <span role="status" className="text-sm text-emerald-700 dark:text-emerald-400">
              {t("saved")}
            </span>
          ) : null}
        </div>
        {error ? <ErrorText>{error}</ErrorText> : null}
      </form>
    </section>
  );
}
