/**
 * The one place the web layer asks "who is this?": route handlers, pages and the
 * Socket.IO handshake all resolve the better-auth session cookie through here.
 */
import type { PrismaClient } from "../generated/prisma/client.ts";
import { createAuth, type Auth } from "./auth.ts";
import { getRuntime } from "../runtime.ts";

export interface SessionUser {
  id: string;
  name: string;
  email: string;
  role: "admin" | "member";
}

const globalKey = "__batonAuth";
type AuthHolder = { [globalKey]?: { auth: Auth; prisma: PrismaClient } };

/** One better-auth instance per process (survives Next's module reloads). */
export function getAuth(prisma: PrismaClient = getRuntime().prisma): Auth {
  const holder = globalThis as AuthHolder;
  const existing = holder[globalKey];
  if (existing && existing.prisma === prisma) return existing.auth;
  const auth = createAuth(prisma);
  holder[globalKey] = { auth, prisma };
  return auth;
}

export async function getSessionUser(headers: Headers, prisma?: PrismaClient): Promise<SessionUser | null> {
  const session = await getAuth(prisma).api.getSession({ headers });
  if (!session) return null;
  const user = session.user as { id: string; name: string; email: string; role?: string };
  return { id: user.id, name: user.name, email: user.email, role: user.role === "admin" ? "admin" : "member" };
}

/** The user and the session itself (its id names the socket room that sign-out empties). */
export async function getSessionWithUser(
  headers: Headers,
  prisma?: PrismaClient,
): Promise<{ user: SessionUser; session: { id: string; expiresAt: Date } } | null> {
  const found = await getAuth(prisma).api.getSession({ headers });
  if (!found) return null;
  const user = found.user as { id: string; name: string; email: string; role?: string };
  return {
    user: { id: user.id, name: user.name, email: user.email, role: user.role === "admin" ? "admin" : "member" },
    session: { id: found.session.id, expiresAt: new Date(found.session.expiresAt) },
  };
}
