"use client";
import { Button } from "../ui/button.tsx";
import { ErrorText, TextField } from "../ui/field.tsx";
import { useAuthSubmit } from "./use-auth-submit.ts";

export function SignInForm() {
  const { error, busy, submit } = useAuthSubmit({
    path: "/api/auth/sign-in/email",
    failure: "Could not sign in.",
    body: (data) => ({ email: data.get("email"), password: data.get("password") }),
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
