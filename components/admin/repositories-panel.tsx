"use client";
/**
 * Admin → Repositories: the repositories agents may work on, and registering one —
 * the root of a repository on the server, or an http(s)/ssh remote the server clones
 * (its credentials are kept on the server and never shown back).
 */
import { useState, type FormEvent } from "react";
import { useTranslations } from "next-intl";
import type { z } from "zod";
import type { workspaceRoutes } from "@/server/protocol/rest/workspace.ts";
import { api } from "../api-client.ts";
import { formText } from "../form-text.ts";
import { Button } from "../ui/button.tsx";
import { ErrorText, TextField } from "../ui/field.tsx";
import { useErrorText } from "../error-text.ts";

type Repository = z.infer<(typeof workspaceRoutes)["repositories"]["response"]>["repositories"][number];

export function RepositoriesPanel({ initialRepositories }: { initialRepositories: Repository[] }) {
  const t = useTranslations("admin.repositories");
  const errorText = useErrorText();
  const [repositories, setRepositories] = useState(initialRepositories);
  const [source, setSource] = useState<"path" | "clone">("path");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState("");
  const [notice, setNotice] = useState("");

  async function register(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = event.currentTarget;
    const data = new FormData(form);
    const location = formText(data.get("location")).trim();
    setBusy(true);
    setError("");
    setNotice("");
    try {
      const { repository } = await api.workspace.registerRepository({
        name: formText(data.get("name")).trim(),
        baseBranch: formText(data.get("baseBranch")).trim() || "main",
        ...(source === "path" ? { path: location } : { cloneUrl: location }),
      });
      setRepositories((list) => [...list, repository].sort((a, b) => a.name.localeCompare(b.name)));
      setNotice(t("registered", { name: repository.name }));
      form.reset();
    } catch (caught) {
      setError(errorText(caught, t("registerFailed")));
    } finally {
      setBusy(false);
    }
  }

  return (
    <section className="flex flex-col gap-3" aria-labelledby="repositories-heading">
      <h2 id="repositories-heading" className="text-lg font-semibold">
        {t("title")}
      </h2>
      {repositories.length === 0 ? (
        <p className="text-sm text-zinc-500">{t("none")}</p>
      ) : (
        <table className="w-full text-left text-sm" data-testid="repositories">
          <thead className="text-xs text-zinc-500">
            <tr>
              <th className="py-1 pr-3 font-medium">{t("name")}</th>
              <th className="py-1 pr-3 font-medium">{t("baseBranch")}</th>
              <th className="py-1 pr-3 font-medium">{t("where")}</th>
            </tr>
          </thead>
          <tbody>
            {repositories.map((repository) => (
              <tr key={repository.id} className="border-t border-zinc-200 dark:border-zinc-800">
                <td className="py-1 pr-3 font-medium">{repository.name}</td>
                <td className="py-1 pr-3 font-mono">{repository.baseBranch}</td>
                <td className="py-1 pr-3 font-mono text-xs break-all">
                  {repository.path}
                  {repository.remote ? <span className="block text-zinc-500">{t("clonedFrom", { remote: repository.remote })}</span> : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}

      <form
        onSubmit={(event) => void register(event)}
        className="flex flex-col gap-3 rounded-md border border-zinc-200 p-3 dark:border-zinc-800"
        aria-label={t("register")}
      >
        <h3 className="text-sm font-semibold">{t("register")}</h3>
        <fieldset className="flex gap-4 text-sm">
          <legend className="sr-only">{t("whereIs")}</legend>
          <label className="flex items-center gap-1">
            <input type="radio" name="source" checked={source === "path"} onChange={() => setSource("path")} />
            {t("folder")}
          </label>
          <label className="flex items-center gap-1">
            <input type="radio" name="source" checked={source === "clone"} onChange={() => setSource("clone")} />
            {t("clone")}
          </label>
        </fieldset>
        <TextField label={t("name")} name="name" required pattern="[a-z0-9_-]{1,40}" hint={t("nameHint")} />
        <TextField
          label={source === "path" ? t("path") : t("cloneUrl")}
          name="location"
          required
          hint={source === "path" ? t("pathHint") : t("cloneHint")}
        />
        <TextField label={t("baseBranch")} name="baseBranch" defaultValue="main" required />
        <div>
          <Button type="submit" size="sm" disabled={busy}>
            {busy ? (source === "clone" ? t("cloning") : t("registering")) : t("submit")}
          </Button>
        </div>
        {notice ? (
          <p role="status" className="text-sm text-emerald-700 dark:text-emerald-400">
            {notice}
          </p>
        ) : null}
        <ErrorText>{error}</ErrorText>
      </form>
    </section>
  );
}
