"use client";
import { useTranslations } from "next-intl";
import { Button } from "../ui/button.tsx";
import { ErrorText, TextField } from "../ui/field.tsx";
import { api } from "../api-client.ts";
import { formText } from "../form-text.ts";
import { useAuthSubmit } from "./use-auth-submit.ts";

export function SignInForm() {
  const t = useTranslations("auth");
  const { error, busy, submit } = useAuthSubmit({
    failure: t("signInFailed"),
    send: (data) => api.account.signIn({ email: formText(data.get("email")), password: formText(data.get("password")) }),
  });

  return (
    <form onSubmit={submit} className="flex flex-col gap-4" aria-label={t("signIn")}>
      <TextField label={t("email")} name="email" type="email" autoComplete="email" required />
      <TextField label={t("password")} name="password" type="password" autoComplete="current-password" required />
      <ErrorText>{error}</ErrorText>
      <Button type="submit" disabled={busy}>
        {busy ? t("signingIn") : t("signIn")}
      </Button>
    </form>
  );
}
