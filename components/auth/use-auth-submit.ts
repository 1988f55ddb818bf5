"use client";
import { useState, type FormEvent } from "react";

/**
 * Submitting an account form: send the fields (through `api.account.*`), go home on
 * success, show the server's message (or a fallback) on failure.
 */
export function useAuthSubmit(input: { failure: string; send: (data: FormData) => Promise<unknown> }) {
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    setBusy(true);
    setError("");
    try {
      await input.send(data);
      window.location.assign("/");
    } catch (caught) {
      setError(caught instanceof Error ? caught.message : input.failure);
      setBusy(false);
    }
  }

  return { error, busy, submit };
}
