"use client";
import { useTranslations } from "next-intl";
import { Button } from "../ui/button.tsx";
import { ErrorText, TextField } from "../ui/field.tsx";
import { api } from "../api-client.ts";
import { formText } from "../form-text.ts";
import { useAuthSubmit } from "./use-auth-submit.ts";

export function SignUpForm({ inviteToken }: { inviteToken?: string }) {
  const t = useTranslations("auth");
  const { error, busy, submit } = useAuthSubmit({
    failure: t("signUpFailed"),
    send: (data) =>
      api.account.signUp({
        name: formText(data.get("name")),
        email: formText(data.get("email")),
        password: formText(data.get("password")),
        inviteToken,
      }),
  });

  return (
    <form onSubmit={submit} className="flex flex-col gap-4" aria-label={t("signUp")}>
      <TextField label={t("name")} name="name" autoComplete="name" required maxLength={80} />
      <TextField label={t("email")} name="email" type="email" autoComplete="email" required />
      <TextField
        label={t("password")}
        name="password"
        type="password"
        autoComplete="new-password"
        required
        minLength={8}
        hint={t("passwordHint", { min: 8 })}
      />
      <ErrorText>{error}</ErrorText>
      <Button type="submit" disabled={busy}>
        {busy ? t("creatingAccount") : t("createAccount")}
      </Button>
    </form>
  );
}
