"use client";
/**
 * Conversation settings → Repository: the repository and base branch the
 * conversation's code steps work on. An admin who owns the conversation links it
 * (a select of the registered repositories, then of that repository's branches);
 * any owner may unlink it; everyone else sees the link only.
 */
import { useEffect, useState } from "react";
import { useTranslations } from "next-intl";
import { api, ApiError } from "../api-client.ts";
import { Button } from "../ui/button.tsx";
import { ErrorText, inputClass } from "../ui/field.tsx";
import { useErrorText } from "../error-text.ts";

/** Said by the settings when the link changed, so the header's badge reloads in this tab. */
export const REPOSITORY_LINK_EVENT = "baton:repository-link";

type Linked = { id: string; name: string; baseBranch: string } | null;

export function RepositoryLink({ conversationId, canManage }: { conversationId: string; canManage: boolean }) {
  const t = useTranslations("repository");
  const errorText = useErrorText();
  const [linked, setLinked] = useState<Linked | undefined>(undefined);
  const [repositories, setRepositories] = useState<{ id: string; name: string }[] | null>(null);
  const [repositoryId, setRepositoryId] = useState("");
  const [branches, setBranches] = useState<string[]>([]);
  const [branch, setBranch] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState("");

  useEffect(() => {
    let live = true;
    void api.workspace.conversationRepository({ conversationId }).then(
      (answer) => {
        if (!live) return;
        setLinked(answer.repository);
        if (answer.repository) setRepositoryId(answer.repository.id);
      },
      (caught: unknown) => live && setError(errorText(caught, t("loadFailed"))),
    );
    if (canManage)
      // admins only: anyone else is answered 403 and sees the link without the choice
      void api.workspace.repositories().then(
        (answer) => live && setRepositories(answer.repositories.map(({ id, name }) => ({ id, name }))),
        (caught: unknown) => {
          if (live && !(caught instanceof ApiError && caught.code === "forbidden")) setError(errorText(caught, ""));
        },
      );
    return () => {
      live = false;
    };
  }, [conversationId, canManage, t, errorText]);

  useEffect(() => {
    if (!repositoryId || !repositories) return;
    let live = true;
    void api.workspace.repositoryBranches({ repositoryId }).then(
      (answer) => {
        if (!live) return;
        setBranches(answer.branches);
        setBranch((current) =>
          answer.branches.includes(current) ? current : linked?.id === repositoryId ? linked.baseBranch : answer.baseBranch,
        );
      },
      (caught: unknown) => live && setError(errorText(caught, t("branchesFailed"))),
    );
    return () => {
      live = false;
    };
  }, [repositoryId, repositories, linked, t, errorText]);

  async function save(next: { repositoryId: string | null; baseBranch?: string }) {
    setBusy(true);
    setError("");
    try {
      const answer = await api.workspace.linkRepository({ conversationId }, next);
      setLinked(answer.repository);
      if (!answer.repository) setRepositoryId("");
      window.dispatchEvent(new CustomEvent(REPOSITORY_LINK_EVENT, { detail: conversationId }));
    } catch (caught) {
      setError(errorText(caught, t("changeFailed")));
    } finally {
      setBusy(false);
    }
  }

  if (linked === undefined && !error) return null;
  return (
    <section className="flex flex-col gap-2" aria-labelledby="repository-link-heading" data-testid="repository-link">
      <h3 id="repository-link-heading" className="text-sm font-semibold">
        {t("title")}
      </h3>
      <p className="text-xs text-zinc-500" data-testid="repository-linked">
        {linked ? t("linked", { name: linked.name, branch: linked.baseBranch }) : t("notLinked")}
      </p>
      {repositories ? (
        <div className="flex flex-wrap items-end gap-2">
          <label className="flex flex-col gap-1 text-sm">
            {t("title")}
            <select
              aria-label={t("title")}
              className={inputClass}
              value={repositoryId}
              onChange={(event) => setRepositoryId(event.target.value)}
            >
              <option value="">{t("none")}</option>
              {repositories.map((repository) => (
                <option key={repository.id} value={repository.id}>
                  {repository.name}
                </option>
              ))}
            </select>
          </label>
          {repositoryId ? (
            <label className="flex flex-col gap-1 text-sm">
              {t("baseBranch")}
              <select
                aria-label={t("baseBranch")}
                className={inputClass}
                value={branch}
                onChange={(event) => setBranch(event.target.value)}
              >
                {branches.map((name) => (
                  <option key={name} value={name}>
                    {name}
                  </option>
                ))}
              </select>
            </label>
          ) : null}
          <Button size="sm" disabled={busy || !repositoryId || !branch} onClick={() => void save({ repositoryId, baseBranch: branch })}>
            {t("link")}
          </Button>
        </div>
      ) : repositories === null && canManage && !linked ? (
        <p className="text-xs text-zinc-500">{t("adminOnly")}</p>
      ) : null}
      {linked && canManage ? (
        <div>
          <Button size="sm" variant="secondary" disabled={busy} onClick={() => void save({ repositoryId: null })}>
            {t("unlink")}
          </Button>
        </div>
      ) : null}
      <ErrorText>{error}</ErrorText>
    </section>
  );
}
