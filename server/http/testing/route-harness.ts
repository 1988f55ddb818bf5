/**
 * Calls the real route handlers in-process (Request in, Response out) against an
 * executor fixture: the automation API with its bearer token and webhook secret,
 * and the browser's routes with a real better-auth session (the first person to
 * sign up is the admin, and is made a member of the fixture's conversation).
 */
import { createHmac, randomUUID } from "node:crypto";
import { loadConfig } from "../../config/config.ts";
import { setRuntime } from "../../runtime.ts";
import { getAuth } from "../../auth/session.ts";
import { createExecutorFixture, type ExecutorFixture } from "../../executor/testing/executor-fixture.ts";
import { directiveScript } from "../../executor/testing/directive-script.ts";
import { API_USER_EMAIL } from "../../access/actor.ts";

export const TEST_API_TOKEN = "test-token-0123456789abcdef";
export const TEST_WEBHOOK_SECRET = "webhook-secret-0123456789";
export const TEST_ORIGIN = "http://baton.test";

export interface RouteHarness {
  fixture: ExecutorFixture;
  apiUserId: string;
  /** the signed-in admin's cookie header, and their id */
  cookie: string;
  adminId: string;
  close(): Promise<void>;
}

export async function createRouteHarness(env: Record<string, string> = {}): Promise<RouteHarness> {
  process.env.BETTER_AUTH_SECRET ??= "route-harness-secret-0123456789abcdef";
  const fixture = await createExecutorFixture({ script: directiveScript });
  const prisma = fixture.db.prisma;
  const apiUser = await prisma.user.findUniqueOrThrow({ where: { email: API_USER_EMAIL } });
  setRuntime({
    config: loadConfig({ BATON_API_TOKEN: TEST_API_TOKEN, BATON_WEBHOOK_SECRET: TEST_WEBHOOK_SECRET, ...env }),
    prisma,
    sql: fixture.db.sql,
    app: fixture.app,
    apiUserId: apiUser.id,
  });
  const email = `admin-${randomUUID()}@example.com`;
  const { headers, response } = await getAuth(prisma).api.signUpEmail({
    body: { email, password: "correct horse battery", name: "Admin" },
    headers: new Headers({ origin: TEST_ORIGIN, host: "baton.test" }),
    returnHeaders: true,
  });
  const cookie = headers
    .getSetCookie()
    .map((line) => line.split(";")[0])
    .join("; ");
  const adminId = response.user.id;
  await fixture.db.prisma.membership.create({ data: { conversationId: fixture.conversationId, userId: adminId } });
  // the automation user joins too, so the /api/v1 routes reach the same conversation
  await fixture.db.prisma.membership.create({ data: { conversationId: fixture.conversationId, userId: apiUser.id } });
  return { fixture, apiUserId: apiUser.id, cookie, adminId, close: () => fixture.close() };
}

/** The webhook signature of docs/README: HMAC-SHA256 over "v1:{timestamp}:{delivery}:{path}:{body}". */
export function signDelivery(input: { secret?: string; timestamp: number; delivery: string; path: string; body: string }): string {
  const signed = `v1:${input.timestamp}:${input.delivery}:${input.path}:${input.body}`;
  return `sha256=${createHmac("sha256", input.secret ?? TEST_WEBHOOK_SECRET)
    .update(signed)
    .digest("hex")}`;
}

/** A request body that counts how many bytes the server pulled from it (never ends on its own). */
export function countingStream(chunkBytes: number, totalBytes: number): { stream: ReadableStream<Uint8Array>; pulled(): number } {
  let sent = 0;
  const chunk = new Uint8Array(chunkBytes).fill(0x20);
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent >= totalBytes) return controller.close();
      sent += chunk.byteLength;
      controller.enqueue(chunk);
    },
  });
  return { stream, pulled: () => sent };
}
