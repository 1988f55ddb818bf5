/**
 * What a failed request says to the reader. The server's refusal carries a code
 * (server/protocol/rest/errors.ts) and an English message; the code is worded in the
 * reader's language (`errors.*`, English: the message as it is) and the message follows
 * as the detail, so nothing specific is lost. better-auth's commonest codes (signing in
 * and up) read whole in the reader's language; any other refusal reads as before.
 */
import { useCallback } from "react";
import { useTranslations } from "next-intl";
import { isErrorCode, type ErrorCode } from "@/server/protocol/rest/errors.ts";
import { ApiError } from "./api-client.ts";

/** better-auth's codes a person meets on the sign-in, sign-up and password forms. */
const AUTH_ERROR_CODES = [
  "INVALID_EMAIL_OR_PASSWORD",
  "INVALID_PASSWORD",
  "INVALID_EMAIL",
  "PASSWORD_TOO_SHORT",
  "PASSWORD_TOO_LONG",
  "USER_ALREADY_EXISTS",
  "USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL",
  /** Baton's own: a sign-up without a valid invite (server/auth/auth.ts) */
  "INVITE_REQUIRED",
] as const;
type AuthErrorCode = (typeof AUTH_ERROR_CODES)[number];
const isAuthErrorCode = (code: string): code is AuthErrorCode => (AUTH_ERROR_CODES as readonly string[]).includes(code);

/** next-intl's translator for the `errors` namespace fits this: a code without a message does not compile. */
export type ErrorTranslate = (key: ErrorCode | `auth.${AuthErrorCode}`, values?: { detail: string }) => string;

/** `caught` as a sentence in the reader's language; `fallback` when it carries no message. */
export function errorText(t: ErrorTranslate, caught: unknown, fallback: string): string {
  if (caught instanceof ApiError && isErrorCode(caught.code)) return t(caught.code, { detail: caught.message });
  if (caught instanceof ApiError && isAuthErrorCode(caught.code)) return t(`auth.${caught.code}`);
  return caught instanceof Error ? caught.message : fallback;
}

/** `errorText` bound to the reader's language; the same function while the language stays. */
export function useErrorText(): (caught: unknown, fallback: string) => string {
  const t = useTranslations("errors");
  return useCallback((caught: unknown, fallback: string) => errorText(t, caught, fallback), [t]);
}
