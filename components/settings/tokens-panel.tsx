"use client";
/**
 * Personal access tokens: create (the secret is shown once, with a Copy button), list,
 * revoke (after a second, explicit click; a revoked token's secret is no longer shown).
 */
import { formText } from "../form-text.ts";
import { useState, type FormEvent } from "react";
import { useRouter } from "next/navigation";
import { useFormatter, useTranslations } from "next-intl";
import { browserTimeZone } from "../time-zone.ts";
import { isTokenScope } from "@/server/protocol/rest/account.ts";
import { api } from "../api-client.ts";
import { Badge } from "../ui/badge.tsx";
import { Button } from "../ui/button.tsx";
import { ErrorText, TextField, inputClass } from "../ui/field.tsx";
import { CopyButton } from "../conversation/copy-button.tsx";
import { useErrorText } from "../error-text.ts";

interface TokenRow {
  id: string;
  name: string;
  prefix: string;
  scopes: string[];
  expiresAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
  createdAt: string;
}

const EXPIRY_CHOICES = [7, 30, 90, 365];

function state(token: TokenRow): "revoked" | "expired" | "active" {
  if (token.revokedAt) return "revoked";
  return new Date(token.expiresAt) <= new Date() ? "expired" : "active";
}

export function TokensPanel({ tokens, canAdmin }: { tokens: TokenRow[]; canAdmin: boolean }) {
  const router = useRouter();
  const t = useTranslations("tokens");
  const errorText = useErrorText();
  const format = useFormatter();
  const timeZone = browserTimeZone();
  const [error, setError] = useState("");
  const [secret, setSecret] = useState<{ tokenId: string; token: string } | null>(null);
  const [confirming, setConfirming] = useState<string | null>(null);

  async function create(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = event.currentTarget;
    const data = new FormData(form);
    setError("");
    setSecret(null);
    try {
      const created = await api.account.createToken({
        name: formText(data.get("name")),
        scopes: data.getAll("scopes").map(String).filter(isTokenScope),
        expiresInDays: Number(data.get("expiresInDays")),
      });
      setSecret({ tokenId: created.record.id, token: created.token });
      form.reset();
      router.refresh();
    } catch (caught) {
      setError(errorText(caught, t("createFailed")));
    }
  }

  async function revoke(token: TokenRow) {
    setError("");
    try {
      await api.account.revokeToken({ tokenId: token.id });
      setConfirming(null);
      setSecret((shown) => (shown?.tokenId === token.id ? null : shown));
      router.refresh();
    } catch (caught) {
      setError(errorText(caught, t("revokeFailed")));
    }
  }

  return (
    <div className="flex max-w-2xl flex-col gap-6">
      <p className="text-sm text-zinc-600 dark:text-zinc-400">
        {t.rich("intro", {
          code: (chunks) => <code>{chunks}</code>,
          b: (chunks) => <b>{chunks}</b>,
          header: "Authorization: Bearer <token>",
        })}
      </p>
      <form
        onSubmit={create}
        aria-label={t("createForm")}
        className="flex flex-col gap-3 rounded-lg border border-zinc-200 p-4 dark:border-zinc-800"
      >
        <TextField label={t("name")} name="name" required maxLength={100} placeholder={t("namePlaceholder")} />
        <fieldset className="flex gap-4 text-sm">
          <legend className="mb-1 font-medium">{t("scopes")}</legend>
          <label className="flex items-center gap-1">
            <input type="checkbox" name="scopes" value="read" defaultChecked /> read
          </label>
          <label className="flex items-center gap-1">
            <input type="checkbox" name="scopes" value="write" /> write
          </label>
          {canAdmin ? (
            <label className="flex items-center gap-1">
              <input type="checkbox" name="scopes" value="admin" /> admin
            </label>
          ) : null}
        </fieldset>
        <label className="flex flex-col gap-1 text-sm">
          <span className="font-medium">{t("expiresAfter")}</span>
          <select name="expiresInDays" defaultValue="30" className={inputClass}>
            {EXPIRY_CHOICES.map((days) => (
              <option key={days} value={days}>
                {t("days", { days })}
              </option>
            ))}
          </select>
        </label>
        <ErrorText>{error}</ErrorText>
        <div>
          <Button type="submit">{t("create")}</Button>
        </div>
      </form>
      {secret ? (
        <div role="status" className="rounded-lg border border-amber-300 bg-amber-50 p-4 text-sm dark:border-amber-700 dark:bg-amber-950">
          <p className="mb-2 font-medium">{t("copyNow")}</p>
          <div className="flex items-start gap-2">
            <code data-testid="new-token" className="block min-w-0 flex-1 break-all rounded bg-white p-2 dark:bg-zinc-900">
              {secret.token}
            </code>
            <CopyButton
              label={t("copy")}
              text={() => secret.token}
              className="rounded-md border border-zinc-300 px-2 py-1 text-sm hover:bg-white dark:border-zinc-700 dark:hover:bg-zinc-900"
            />
          </div>
        </div>
      ) : null}
      <section aria-label={t("yours")}>
        <h2 className="mb-2 text-sm font-semibold">{t("yours")}</h2>
        {tokens.length === 0 ? <p className="text-sm text-zinc-500">{t("none")}</p> : null}
        <ul className="divide-y divide-zinc-200 dark:divide-zinc-800">
          {tokens.map((token) => {
            const status = state(token);
            return (
              <li key={token.id} className="flex items-center gap-3 py-2 text-sm" data-testid="token">
                <div className="min-w-0 flex-1">
                  <p className="font-medium">
                    {token.name} <code className="text-xs text-zinc-500">{token.prefix}…</code>
                  </p>
                  <p className="text-xs text-zinc-500" suppressHydrationWarning>
                    {token.scopes.join(", ")} ·{" "}
                    {t("expires", { date: format.dateTime(new Date(token.expiresAt), { dateStyle: "medium", timeZone }) })} ·{" "}
                    {token.lastUsedAt
                      ? t("lastUsed", {
                          at: format.dateTime(new Date(token.lastUsedAt), { dateStyle: "medium", timeStyle: "short", timeZone }),
                        })
                      : t("neverUsed")}
                  </p>
                </div>
                <Badge tone={status === "active" ? "green" : "zinc"}>{t("state", { state: status })}</Badge>
                {status === "active" && confirming === token.id ? (
                  <span className="flex items-center gap-1" role="group" aria-label={t("revokeQuestion", { name: token.name })}>
                    <Button size="sm" variant="danger" onClick={() => revoke(token)}>
                      {t("revokeForGood")}
                    </Button>
                    <Button size="sm" variant="ghost" onClick={() => setConfirming(null)}>
                      {t("keep")}
                    </Button>
                  </span>
                ) : status === "active" ? (
                  <Button
                    size="sm"
                    variant="secondary"
                    onClick={() => setConfirming(token.id)}
                    aria-label={t("revokeLabel", { name: token.name })}
                  >
                    {t("revoke")}
                  </Button>
                ) : null}
              </li>
            );
          })}
        </ul>
      </section>
    </div>
  );
}
