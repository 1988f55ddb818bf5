"use client";
import { Button } from "../ui/button.tsx";
import { ErrorText, TextField } from "../ui/field.tsx";
import { api } from "../api-client.ts";
import { formText } from "../form-text.ts";
import { useAuthSubmit } from "./use-auth-submit.ts";

export function SignInForm() {
  const { error, busy, submit } = useAuthSubmit({
    failure: "Could not sign in.",
    send: (data) => api.account.signIn({ email: formText(data.get("email")), password: formText(data.get("password")) }),
  });

  return (
    <form onSubmit={submit} className="flex flex-col gap-4" aria-label="Sign in">
      <TextField label="Email" name="email" type="email" autoComplete="email" required />
      <TextField label="Password" name="password" type="password" autoComplete="current-password" required />
      <ErrorText>{error}</ErrorText>
      <Button type="submit" disabled={busy}>
        {busy ? "Signing in…" : "Sign in"}
      </Button>
    </form>
  );
}
