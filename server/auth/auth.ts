/**
 * Accounts: better-auth with email + password over Prisma. Passwords are hashed by
 * better-auth's default scrypt (memory-hard); sessions live in httpOnly cookies;
 * mutations are CSRF-checked by its origin check. The first user becomes admin;
 * after that, signing up needs an unused invite token (see invites.ts).
 */
import fs from "node:fs";
import path from "node:path";
import crypto from "node:crypto";
import { betterAuth } from "better-auth";
import { APIError } from "better-auth/api";
import { prismaAdapter } from "better-auth/adapters/prisma";
import type { PrismaClient } from "../generated/prisma/client.ts";
import { claimInvite, hasHumanUser, recordInviteUse } from "../services/invites.ts";
import { createPersonalDemo } from "../services/seed.ts";
import { CLIENT_IP_HEADER } from "../http/client-address.ts";
import { logFor } from "../observability/log.ts";

/** sign-up attempts per client address per minute */
export const SIGN_UP_LIMIT = { window: 60, max: 20 };
export const MIN_PASSWORD_LENGTH = 8;
/** the custom server overwrites this header with the client's address (see http/client-address.ts) */
export { CLIENT_IP_HEADER } from "../http/client-address.ts";

/** A secret from the environment, or one generated once and kept in the data dir. */
function resolveSecret(): string {
  if (process.env.BETTER_AUTH_SECRET) return process.env.BETTER_AUTH_SECRET;
  const dir = process.env.BATON_DATA_DIR ?? "./data";
  const file = path.join(dir, "auth-secret");
  const existing = readSecretFile(file);
  if (existing !== null) {
    // a secret left readable by others (an older version, a copy) is made private
    if ((fs.statSync(file).mode & 0o077) !== 0) fs.chmodSync(file, 0o600);
    return existing;
  }
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const secret = crypto.randomBytes(32).toString("base64url");
  fs.writeFileSync(file, secret, { mode: 0o600 });
  return secret;
}

function readSecretFile(file: string): string | null {
  try {
    return fs.readFileSync(file, "utf8").trim();
  } catch {
    return null;
  }
}

export function configuredOrigins(): string[] {
  const list = [process.env.BETTER_AUTH_URL, ...(process.env.BATON_TRUSTED_ORIGINS ?? "").split(",")];
  return list.map((origin) => origin?.trim()).filter((origin): origin is string => Boolean(origin));
}

/**
 * The configured origins plus the one the request was addressed to, so a fresh
 * `npm start` works at whatever host and port it is reached on. A cross-site request
 * carries another site's Origin, which still matches none of these.
 */
export function trustedOrigins(request?: Request): string[] {
  const origins = configuredOrigins();
  const host = request?.headers.get("x-forwarded-host") ?? request?.headers.get("host");
  if (host) {
    const forwardedProto = request?.headers.get("x-forwarded-proto");
    const protocol = forwardedProto ?? (request ? new URL(request.url).protocol.replace(":", "") : "http");
    origins.push(`${protocol}://${host}`);
  }
  return origins;
}

function readInviteToken(context: unknown): string | undefined {
  const body = (context as { body?: Record<string, unknown> } | null)?.body;
  const token = body?.inviteToken;
  return typeof token === "string" && token.length > 0 && token.length < 200 ? token : undefined;
}

const authLog = logFor({ component: "better-auth" });

const sessionEndedKey = Symbol.for("baton.sessionEnded");
type SessionEndedHolder = { [sessionEndedKey]?: (sessionId: string) => void };

/**
 * Who closes a deleted session's live sockets: the socket layer registers itself when it
 * starts serving (socket/rooms.ts), so auth/ does not import socket/. Kept on globalThis
 * because Next bundles route handlers (where sign-out runs) apart from the custom server.
 */
export function onSessionEnded(listener: (sessionId: string) => void): void {
  (globalThis as SessionEndedHolder)[sessionEndedKey] = listener;
}

function sessionEnded(sessionId: string): void {
  (globalThis as SessionEndedHolder)[sessionEndedKey]?.(sessionId);
}

export function createAuth(prisma: PrismaClient) {
  return betterAuth({
    appName: "Baton",
    secret: resolveSecret(),
    baseURL: process.env.BETTER_AUTH_URL || undefined,
    trustedOrigins: (request) => trustedOrigins(request),
    database: prismaAdapter(prisma, { provider: "postgresql" }),
    // Better Auth's lines go into Baton's one JSON log stream, with the request id of the request they belong to
    logger: {
      level: "info",
      log: (level, message, ...args) => {
        const err = args.find((arg) => arg instanceof Error);
        const extra = args.filter((arg) => arg !== err);
        authLog[level]({ ...(err ? { err } : {}), ...(extra.length ? { details: extra } : {}) }, message);
      },
    },
    emailAndPassword: {
      enabled: true,
      minPasswordLength: MIN_PASSWORD_LENGTH,
      maxPasswordLength: 128,
      autoSignIn: true,
    },
    user: {
      additionalFields: {
        // set by the server only (first user / invite), never by the sign-up body
        role: { type: "string", input: false, defaultValue: "member", required: false },
      },
    },
    session: { expiresIn: 60 * 60 * 24 * 30, updateAge: 60 * 60 * 24 },
    rateLimit: {
      enabled: true,
      window: 60,
      max: 300,
      storage: "memory",
      // sign-in is limited per account and per address in auth-handler.ts instead: this
      // limiter keys on the address only and its window restarts with every attempt
      customRules: { "/sign-in/email": false, "/sign-up/email": SIGN_UP_LIMIT },
    },
    advanced: {
      ipAddress: { ipAddressHeaders: [CLIENT_IP_HEADER] },
      useSecureCookies: process.env.BETTER_AUTH_URL?.startsWith("https://") ?? false,
    },
    databaseHooks: {
      session: {
        // sign-out and every revocation delete the row: that session's sockets close now
        delete: { after: async (session) => sessionEnded(session.id) },
      },
      user: {
        create: {
          before: async (user, context) => {
            if (!(await hasHumanUser(prisma))) return { data: { ...user, role: "admin" } };
            const token = readInviteToken(context);
            const invite = token ? await claimInvite(prisma, token) : null;
            if (!invite) {
              throw new APIError("FORBIDDEN", {
                message: "Sign-up is by invitation. Ask an admin for an invite link.",
                code: "INVITE_REQUIRED",
              });
            }
            return { data: { ...user, role: invite.role } };
          },
          after: async (user, context) => {
            const token = readInviteToken(context);
            if (token) await recordInviteUse(prisma, { token, userId: user.id });
            await createPersonalDemo(prisma, user.id);
          },
        },
      },
    },
  });
}

export type Auth = ReturnType<typeof createAuth>;
