/**
 * What a failed request says to the reader. The server's refusal carries a code
 * (server/protocol/rest/errors.ts) and an English message; the code is worded in the
 * reader's language (`errors.*`, English: the message as it is) and the message follows
 * as the detail, so nothing specific is lost. A refusal without a known code (better-auth's,
 * a thrown Error) reads as before.
 */
import { useCallback } from "react";
import { useTranslations } from "next-intl";
import { isErrorCode, type ErrorCode } from "@/server/protocol/rest/errors.ts";
import { ApiError } from "./api-client.ts";

/** next-intl's translator for the `errors` namespace fits this: a code without a message does not compile. */
export type ErrorTranslate = (code: ErrorCode, values: { detail: string }) => string;

/** `caught` as a sentence in the reader's language; `fallback` when it carries no message. */
export function errorText(t: ErrorTranslate, caught: unknown, fallback: string): string {
  if (caught instanceof ApiError && isErrorCode(caught.code)) return t(caught.code, { detail: caught.message });
  return caught instanceof Error ? caught.message : fallback;
}

/** `errorText` bound to the reader's language; the same function while the language stays. */
export function useErrorText(): (caught: unknown, fallback: string) => string {
  const t = useTranslations("errors");
  return useCallback((caught: unknown, fallback: string) => errorText(t, caught, fallback), [t]);
}
