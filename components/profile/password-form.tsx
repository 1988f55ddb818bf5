"use client";
import { useState, type FormEvent } from "react";
import { useTranslations } from "next-intl";
import { Button } from "../ui/button.tsx";
import { ErrorText, TextField } from "../ui/field.tsx";
import { api } from "../api-client.ts";
import { formText } from "../form-text.ts";
import { useErrorText } from "../error-text.ts";

/** Matches the server's rule (server/auth/auth.ts MIN_PASSWORD_LENGTH); the server checks again. */
const MIN_PASSWORD_LENGTH = 8;

/**
 * Changing one's password through better-auth's own endpoint: it checks the current
 * password; the person's other sessions (other browsers, a lost laptop) are signed out.
 */
export function PasswordForm() {
  const t = useTranslations("profile.password");
  const errorText = useErrorText();
  const [error, setError] = useState("");
  const [done, setDone] = useState(false);
  const [busy, setBusy] = useState(false);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = event.currentTarget;
    const data = new FormData(form);
    const newPassword = formText(data.get("newPassword"));
    setDone(false);
    if (newPassword.length < MIN_PASSWORD_LENGTH) return setError(t("tooShort", { min: MIN_PASSWORD_LENGTH }));
    if (newPassword !== formText(data.get("confirmPassword"))) return setError(t("differ"));
    setBusy(true);
    setError("");
    try {
      await api.account.changePassword({ currentPassword: formText(data.get("currentPassword")), newPassword, revokeOtherSessions: true });
      form.reset();
      setDone(true);
    } catch (caught) {
      setError(errorText(caught, t("failed")));
    } finally {
      setBusy(false);
    }
  }

  return (
    <form onSubmit={submit} className="flex flex-col gap-4" aria-labelledby="password-heading">
      <h2 id="password-heading" className="text-sm font-semibold">
        {t("title")}
      </h2>
      <TextField label={t("current")} name="currentPassword" type="password" autoComplete="current-password" required />
      <TextField label={t("new")} name="newPassword" type="password" autoComplete="new-password" required />
      <TextField label={t("again")} name="confirmPassword" type="password" autoComplete="new-password" required />
      <ErrorText>{error}</ErrorText>
      {done ? (
        <p role="status" className="text-sm text-emerald-700 dark:text-emerald-400">
          {t("changed")}
        </p>
      ) : null}
      <Button type="submit" disabled={busy} className="self-start">
        {busy ? t("changing") : t("title")}
      </Button>
    </form>
  );
}
