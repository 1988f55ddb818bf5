/**
 * Socket.IO security with real socket.io-client connections to a real server in this
 * process: Origin checked on both transports, sockets closed on sign-out and session
 * revocation, a removed member evicted from the room, handshakes rate-limited.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Socket } from "socket.io-client";
import {
  createAccountsFixture,
  cookieFrom,
  nextTestAddress,
  signUpInvited,
  TEST_ORIGIN,
  type AccountsFixture,
  type TestAccount,
} from "../auth/testing/accounts.ts";
import { getAuth } from "../auth/session.ts";
import { CLIENT_IP_HEADER } from "../http/client-address.ts";
import { createMembershipServices } from "../services/memberships.ts";
import { socketMembershipNotifier } from "./rooms.ts";
import { conversationRoom } from "../protocol/rooms.ts";
import { startSocketTestServer, type SocketTestServer } from "./testing/socket-test-server.ts";
import { DEFAULT_SOCKET_LIMITS } from "./limits.ts";

const CONFIGURED_ORIGIN = "https://chat.example.org";
// a low per-address ceiling, so the test reaches it quickly (the default is 2,000 a minute)
const LIMITS = { ...DEFAULT_SOCKET_LIMITS, handshakesPerAddress: 12 };
let fixture: AccountsFixture;
let server: SocketTestServer;
let url: string;
let bob: TestAccount;

// a trusted proxy's header (the server runs with BATON_TRUST_PROXY=1) keeps each test's handshake budget apart
const dial = (options: { cookie?: string; origin?: string; transport: "polling" | "websocket"; address?: string }) =>
  server.dial({ ...options, address: options.address ?? nextTestAddress() });

const disconnected = (socket: Socket) => new Promise<string>((resolve) => socket.once("disconnect", (reason) => resolve(reason)));

async function signIn(account: TestAccount) {
  const response = await getAuth(fixture.db.prisma).handler(
    new Request(`${TEST_ORIGIN}/api/auth/sign-in/email`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: TEST_ORIGIN, [CLIENT_IP_HEADER]: nextTestAddress() },
      body: JSON.stringify({ email: account.email, password: "correct horse battery" }),
    }),
  );
  expect(response.status).toBe(200);
  return cookieFrom(response);
}

beforeAll(async () => {
  fixture = await createAccountsFixture();
  bob = await signUpInvited(fixture.db.prisma, fixture.admin, "Bob");
  server = await startSocketTestServer(fixture.runtime.app, { trustProxy: 1, origins: [CONFIGURED_ORIGIN], limits: LIMITS });
  url = server.url;
});

afterAll(async () => {
  await server?.close();
  await fixture?.close();
});

describe("Socket.IO origin", () => {
  for (const transport of ["polling", "websocket"] as const) {
    it(`refuses another site's Origin over ${transport}, accepts the site's own and configured ones`, async () => {
      const evil = await dial({ cookie: bob.cookie, origin: "https://evil.example", transport });
      expect(evil).toEqual({ connected: false, error: expect.stringMatching(/origin not allowed|xhr poll error|websocket error/) });
      const own = await dial({ cookie: bob.cookie, origin: url, transport });
      expect(own.connected).toBe(true);
      const configured = await dial({ cookie: bob.cookie, origin: CONFIGURED_ORIGIN, transport });
      expect(configured.connected).toBe(true);
      const anonymous = await dial({ origin: url, transport });
      expect(anonymous).toEqual({ connected: false, error: "unauthenticated" });
    });
  }
});

describe("sessions", () => {
  it("closes a session's sockets when it signs out, and only that session's", async () => {
    const carol = await signUpInvited(fixture.db.prisma, fixture.admin, "Carol");
    const otherCookie = await signIn(carol);
    const first = await dial({ cookie: carol.cookie, transport: "websocket" });
    const second = await dial({ cookie: carol.cookie, transport: "polling" });
    const elsewhere = await dial({ cookie: otherCookie, transport: "websocket" });
    if (!first.connected || !second.connected || !elsewhere.connected) throw new Error("did not connect");
    const closed = Promise.all([disconnected(first.socket), disconnected(second.socket)]);
    const signOut = await getAuth(fixture.db.prisma).handler(
      new Request(`${TEST_ORIGIN}/api/auth/sign-out`, {
        method: "POST",
        headers: { cookie: carol.cookie, origin: TEST_ORIGIN, "content-type": "application/json" },
        body: "{}",
      }),
    );
    expect(signOut.status).toBe(200);
    expect(await closed).toEqual(["io server disconnect", "io server disconnect"]);
    expect(elsewhere.socket.connected).toBe(true);
    // the signed-out cookie cannot open a new one
    expect(await dial({ cookie: carol.cookie, transport: "websocket" })).toEqual({ connected: false, error: "unauthenticated" });

    // revoking the other session (as "sign out everywhere" does) closes its socket too
    const gone = disconnected(elsewhere.socket);
    const revoke = await getAuth(fixture.db.prisma).handler(
      new Request(`${TEST_ORIGIN}/api/auth/revoke-sessions`, {
        method: "POST",
        headers: { cookie: otherCookie, origin: TEST_ORIGIN, "content-type": "application/json" },
        body: "{}",
      }),
    );
    expect(revoke.status).toBe(200);
    expect(await gone).toBe("io server disconnect");
  });
});

describe("membership", () => {
  it("a removed member's sockets leave the conversation's room at once and are told", async () => {
    const owner = await signUpInvited(fixture.db.prisma, fixture.admin, "Olive");
    const services = createMembershipServices(fixture.db.prisma, socketMembershipNotifier);
    const { id } = await fixture.runtime.app.conversations.createConversation({ title: "Room", agentHandles: [], userId: owner.id });
    const dan = await signUpInvited(fixture.db.prisma, fixture.admin, "Dan");
    const danSocket = await dial({ cookie: dan.cookie, transport: "websocket" });
    if (!danSocket.connected) throw new Error("did not connect");
    const invited = new Promise<void>((resolve) => danSocket.socket.once("invitations-changed", () => resolve()));
    await services.invite({ actor: owner, conversationId: id, email: dan.email });
    await invited;
    const added = new Promise((resolve) => danSocket.socket.once("membership-changed", resolve));
    const [pending] = await services.listMyInvitations({ actor: dan });
    await services.answerInvitation({ actor: dan, invitationId: pending.id, accept: true });
    expect(await added).toEqual({ conversationId: id, change: "added" });
    const join = await danSocket.socket.emitWithAck("conversation-join", { conversationId: id, afterSeq: 0 });
    expect(join.ok).toBe(true);
    expect((await server.io.in(conversationRoom(id)).fetchSockets()).map((socket) => socket.id)).toContain(danSocket.socket.id);

    const removed = new Promise((resolve) => danSocket.socket.once("membership-changed", resolve));
    await services.removeMember({ actor: owner, conversationId: id, userId: dan.id });
    expect(await removed).toEqual({ conversationId: id, change: "removed" });
    expect((await server.io.in(conversationRoom(id)).fetchSockets()).map((socket) => socket.id)).not.toContain(danSocket.socket.id);
    expect((await danSocket.socket.emitWithAck("conversation-join", { conversationId: id, afterSeq: 0 })).ok).toBe(false);
  });
});

describe("handshake rate limit", () => {
  it("refuses handshakes from one address past the limit, and not from another", async () => {
    const address = "198.51.100.77";
    const handshake = (from: string) =>
      fetch(`${url}/socket.io/?EIO=4&transport=polling`, { headers: { "x-forwarded-for": from, cookie: bob.cookie } }).then(
        (response) => response.status,
      );
    const statuses: number[] = [];
    for (let i = 0; i < LIMITS.handshakesPerAddress; i++) statuses.push(await handshake(address));
    expect(statuses.every((status) => status === 200)).toBe(true);
    expect(await handshake(address)).toBe(403);
    expect(await handshake("198.51.100.78")).toBe(200);
  });
});
