/**
 * Real accounts for tests: sign-ups through better-auth's own handler (first one
 * admin, later ones through invites), returning the session cookie a browser would
 * hold, and a runtime with a fresh database for route-handler tests.
 */
import { randomUUID } from "node:crypto";
import { createTestDatabase, type TestDatabase } from "../../db/testing/test-database.ts";
import { loadConfig } from "../../config/config.ts";
import { setRuntime, type Runtime } from "../../runtime.ts";
import type { Executor } from "../../executor/executor.ts";
import { createConversationServices } from "../../services/conversations.ts";
import { API_USER_EMAIL, seedWorkspace } from "../../services/seed.ts";
import type { PrismaClient } from "../../generated/prisma/client.ts";
import { CLIENT_IP_HEADER } from "../auth.ts";
import { createInvite } from "../invites.ts";
import { getAuth } from "../session.ts";

process.env.BETTER_AUTH_SECRET ??= "test-secret-0123456789-0123456789-abcdef";

export const TEST_ORIGIN = "http://baton.test";

export interface TestAccount {
  id: string;
  name: string;
  email: string;
  role: "admin" | "member";
  cookie: string;
  sessionToken: string;
}

let addressCounter = 0;
/** a different client address per call, so better-auth's per-address limiter stays out of the way */
export const nextTestAddress = () => `10.9.${Math.floor(++addressCounter / 250)}.${addressCounter % 250}`;

export async function signUp(
  prisma: PrismaClient,
  input: { name: string; email?: string; password?: string; inviteToken?: string },
): Promise<TestAccount> {
  const email = input.email ?? `${input.name.toLowerCase()}-${randomUUID().slice(0, 8)}@example.com`;
  const response = await getAuth(prisma).handler(
    new Request(`${TEST_ORIGIN}/api/auth/sign-up/email`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: TEST_ORIGIN, host: "baton.test", [CLIENT_IP_HEADER]: nextTestAddress() },
      body: JSON.stringify({
        name: input.name,
        email,
        password: input.password ?? "correct horse battery",
        inviteToken: input.inviteToken,
      }),
    }),
  );
  if (!response.ok) throw new Error(`sign-up failed: ${response.status} ${await response.text()}`);
  const cookie = cookieFrom(response);
  const user = await prisma.user.findUniqueOrThrow({ where: { email } });
  const sessionToken = decodeURIComponent(cookie.split("=")[1] ?? "").split(".")[0] ?? "";
  return { id: user.id, name: user.name, email, role: user.role === "admin" ? "admin" : "member", cookie, sessionToken };
}

/** The `name=value` pairs of a response's Set-Cookie headers, as a Cookie header. */
export function cookieFrom(response: Response): string {
  return response.headers
    .getSetCookie()
    .map((line) => line.split(";")[0])
    .filter((pair) => !pair.endsWith("="))
    .join("; ");
}

/** A second (third…) person: an invite from `admin`, then a sign-up through it. */
export async function signUpInvited(prisma: PrismaClient, admin: { id: string }, name: string, role: "admin" | "member" = "member") {
  const invite = await createInvite(prisma, { actor: { id: admin.id, role: "admin" }, role });
  return signUp(prisma, { name, inviteToken: invite.token });
}

export interface AccountsFixture {
  db: TestDatabase;
  runtime: Runtime;
  admin: TestAccount;
  close(): Promise<void>;
}

/** A migrated database with the demo agents, an admin account, and the runtime set for route handlers. */
export async function createAccountsFixture(env: Record<string, string> = {}): Promise<AccountsFixture> {
  const db = await createTestDatabase({ kind: "embedded" });
  await seedWorkspace(db.prisma, { defaultModel: "offline", demoConversation: false });
  const apiUser = await db.prisma.user.findUniqueOrThrow({ where: { email: API_USER_EMAIL } });
  const runtime: Runtime = {
    config: loadConfig(env),
    prisma: db.prisma,
    sql: db.sql,
    // membership, token and audit routes reach the executor only to say its agent cache is stale
    executor: { agentsChanged: () => undefined } as Pick<Executor, "agentsChanged"> as Executor,
    services: createConversationServices(db.prisma),
    apiUserId: apiUser.id,
  };
  setRuntime(runtime);
  const admin = await signUp(db.prisma, { name: "Admin" });
  return { db, runtime, admin, close: () => db.close() };
}

/** A route-handler Request as a signed-in browser sends it. */
export function browserRequest(
  path: string,
  init: { method?: string; cookie?: string; body?: unknown; headers?: Record<string, string> } = {},
) {
  return new Request(`${TEST_ORIGIN}${path}`, {
    method: init.method ?? (init.body === undefined ? "GET" : "POST"),
    headers: {
      host: "baton.test",
      ...(init.cookie ? { cookie: init.cookie } : {}),
      ...(init.body === undefined ? {} : { "content-type": "application/json" }),
      ...init.headers,
    },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
}
