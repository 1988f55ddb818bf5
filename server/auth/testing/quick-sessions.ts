/**
 * Many signed-in people for a test in seconds: users written directly and sessions
 * made by better-auth itself (its context's createSession, its cookie name and its
 * signature), skipping the memory-hard password hash that makes a real sign-up cost
 * a second or two. For tests that need hundreds of distinct users (handshake limits,
 * the scale benchmark); tests of signing up and in use accounts.ts.
 */
import { randomUUID } from "node:crypto";
import { getCookies } from "better-auth/cookies";
import { makeSignature } from "better-auth/crypto";
import type { PrismaClient } from "../../generated/prisma/client.ts";
import { getAuth } from "../session.ts";

export interface QuickAccount {
  id: string;
  name: string;
  cookie: string;
}

/** A member with a live session, and the Cookie header a browser would send. */
export async function quickAccount(prisma: PrismaClient, name: string): Promise<QuickAccount> {
  const auth = getAuth(prisma);
  const context = await auth.$context;
  const user = await prisma.user.create({
    data: { id: randomUUID(), name, email: `${name.toLowerCase()}-${randomUUID().slice(0, 8)}@example.com`, role: "member" },
  });
  const session = await context.internalAdapter.createSession(user.id);
  const signature = await makeSignature(session.token, context.secret);
  const cookieName = getCookies(auth.options).sessionToken.name;
  return { id: user.id, name, cookie: `${cookieName}=${encodeURIComponent(`${session.token}.${signature}`)}` };
}
