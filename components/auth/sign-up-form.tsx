"use client";
import { Button } from "../ui/button.tsx";
import { ErrorText, TextField } from "../ui/field.tsx";
import { api } from "../api-client.ts";
import { formText } from "../form-text.ts";
import { useAuthSubmit } from "./use-auth-submit.ts";

export function SignUpForm({ inviteToken }: { inviteToken?: string }) {
  const { error, busy, submit } = useAuthSubmit({
    failure: "Could not sign up.",
    send: (data) =>
      api.account.signUp({
        name: formText(data.get("name")),
        email: formText(data.get("email")),
        password: formText(data.get("password")),
        inviteToken,
      }),
  });

  return (
    <form onSubmit={submit} className="flex flex-col gap-4" aria-label="Sign up">
      <TextField label="Name" name="name" autoComplete="name" required maxLength={80} />
      <TextField label="Email" name="email" type="email" autoComplete="email" required />
      <TextField
        label="Password"
        name="password"
        type="password"
        autoComplete="new-password"
        required
        minLength={8}
        hint="At least 8 characters."
      />
      <ErrorText>{error}</ErrorText>
      <Button type="submit" disabled={busy}>
        {busy ? "Creating account…" : "Create account"}
      </Button>
    </form>
  );
}
