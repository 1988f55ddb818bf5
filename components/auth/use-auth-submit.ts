"use client";
import { useState, type FormEvent } from "react";
import { apiFetch } from "../api-client.ts";

/**
 * Submitting an account form: post the fields to an auth endpoint, go home on
 * success, show the server's message (or a fallback) on failure.
 */
export function useAuthSubmit(input: { path: string; failure: string; body: (data: FormData) => Record<string, unknown> }) {
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    setBusy(true);
    setError("");
    try {
      await apiFetch(input.path, { method: "POST", json: input.body(data) });
      window.location.assign("/");
    } catch (caught) {
      setError(caught instanceof Error ? caught.message : input.failure);
      setBusy(false);
    }
  }

  return { error, busy, submit };
}
