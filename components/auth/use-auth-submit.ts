"use client";
import { useState, type FormEvent } from "react";
import { useErrorText } from "../error-text.ts";

/**
 * Submitting an account form: send the fields (through `api.account.*`), go home on
 * success, show the server's refusal in the reader's language (or a fallback) on failure.
 */
export function useAuthSubmit(input: { failure: string; send: (data: FormData) => Promise<unknown> }) {
  const errorText = useErrorText();
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
      setError(errorText(caught, input.failure));
      setBusy(false);
    }
  }

  return { error, busy, submit };
}
