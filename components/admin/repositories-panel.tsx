"use client";
/**
 * Admin → Repositories: the repositories agents may work on, and registering one —
 * the root of a repository on the server, or an http(s)/ssh remote the server clones
 * (its credentials are kept on the server and never shown back).
 */
import { useState, type FormEvent } from "react";
import type { z } from "zod";
import type { workspaceRoutes } from "@/server/protocol/rest/workspace.ts";
import { api } from "../api-client.ts";
import { formText } from "../form-text.ts";
import { Button } from "../ui/button.tsx";
import { ErrorText, TextField } from "../ui/field.tsx";

type Repository = z.infer<(typeof workspaceRoutes)["repositories"]["response"]>["repositories"][number];

export function RepositoriesPanel({ initialRepositories }: { initialRepositories: Repository[] }) {
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
      setNotice(`Registered ${repository.name}.`);
      form.reset();
    } catch (caught) {
      setError(caught instanceof Error ? caught.message : "Could not register the repository.");
    } finally {
      setBusy(false);
    }
  }

  return (
    <section className="flex flex-col gap-3" aria-labelledby="repositories-heading">
      <h2 id="repositories-heading" className="text-lg font-semibold">
        Repositories
      </h2>
      {repositories.length === 0 ? (
        <p className="text-sm text-zinc-500">No repository yet: register one below, then link a conversation to it from its settings.</p>
      ) : (
        <table className="w-full text-left text-sm" data-testid="repositories">
          <thead className="text-xs text-zinc-500">
            <tr>
              <th className="py-1 pr-3 font-medium">Name</th>
              <th className="py-1 pr-3 font-medium">Base branch</th>
              <th className="py-1 pr-3 font-medium">Where</th>
            </tr>
          </thead>
          <tbody>
            {repositories.map((repository) => (
              <tr key={repository.id} className="border-t border-zinc-200 dark:border-zinc-800">
                <td className="py-1 pr-3 font-medium">{repository.name}</td>
                <td className="py-1 pr-3 font-mono">{repository.baseBranch}</td>
                <td className="py-1 pr-3 font-mono text-xs break-all">
                  {repository.path}
                  {repository.remote ? <span className="block text-zinc-500">cloned from {repository.remote}</span> : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}

      <form
        onSubmit={(event) => void register(event)}
        className="flex flex-col gap-3 rounded-md border border-zinc-200 p-3 dark:border-zinc-800"
        aria-label="Register a repository"
      >
        <h3 className="text-sm font-semibold">Register a repository</h3>
        <fieldset className="flex gap-4 text-sm">
          <legend className="sr-only">Where the repository is</legend>
          <label className="flex items-center gap-1">
            <input type="radio" name="source" checked={source === "path"} onChange={() => setSource("path")} />A folder on the server
          </label>
          <label className="flex items-center gap-1">
            <input type="radio" name="source" checked={source === "clone"} onChange={() => setSource("clone")} />
            Clone from a URL
          </label>
        </fieldset>
        <TextField label="Name" name="name" required pattern="[a-z0-9_-]{1,40}" hint="lowercase letters, digits, - and _" />
        <TextField
          label={source === "path" ? "Path on the server" : "Clone URL"}
          name="location"
          required
          hint={
            source === "path"
              ? "The repository's root folder (or a bare repository), as an absolute path."
              : "https://…, ssh://… or git@host:path. Credentials in the URL stay on the server."
          }
        />
        <TextField label="Base branch" name="baseBranch" defaultValue="main" required />
        <div>
          <Button type="submit" size="sm" disabled={busy}>
            {busy ? (source === "clone" ? "Cloning…" : "Registering…") : "Register"}
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
