"use client";
import { useState, type FormEvent } from "react";
import { Button } from "../ui/button.tsx";
import { ErrorText, TextField } from "../ui/field.tsx";
import { apiFetch } from "../api-client.ts";

export function SignUpForm({ inviteToken }: { inviteToken?: string }) {
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    setBusy(true);
    setError("");
    try {
      await apiFetch("/api/auth/sign-up/email", {
        method: "POST",
        json: { name: data.get("name"), email: data.get("email"), password: data.get("password"), inviteToken },
      });
      window.location.assign("/");
    } catch (caught) {
      setError(caught instanceof Error ? caught.message : "Could not sign up.");
      setBusy(false);
    }
  }

  return (
    <form onSubmit={submit} className="flex flex-col gap-4" aria-label="Sign up">
      <TextField label="Name" name="name" autoComplete="name" required maxLength={80} />
      <TextField label="Email" name="email" type="email" autoComplete="email" required />
      <TextField label="Password" name="password" type="password" autoComplete="new-password" required minLength={8} hint="At least 8 characters." />
      <ErrorText>{error}</ErrorText>
      <Button type="submit" disabled={busy}>
        {busy ? "Creating account…" : "Create account"}
      </Button>
    </form>
  );
}
