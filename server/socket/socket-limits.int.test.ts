/**
 * What one client may cost the Socket.IO server (limits.ts), with real socket.io-client
 * connections to a real server in this process: an office behind one address connects,
 * one person hammering does not, and a flood from one signed-in non-member is cut off
 * while another person's live updates keep arriving and memory stays bounded.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccountsFixture, type AccountsFixture } from "../auth/testing/accounts.ts";
import { quickAccount, type QuickAccount } from "../auth/testing/quick-sessions.ts";
import { conversationRoom } from "../protocol/rooms.ts";
import { DEFAULT_SOCKET_LIMITS, MAX_SOCKET_MESSAGE_BYTES, TOO_MANY_HANDSHAKES } from "./limits.ts";
import { startSocketTestServer, type DialOutcome as Outcome, type SocketTestServer } from "./testing/socket-test-server.ts";

let fixture: AccountsFixture;
let server: SocketTestServer;
// a trusted proxy's header (the server runs with BATON_TRUST_PROXY=1): the office's one address
const dial = (input: { cookie?: string; address: string }) => server.dial(input);

async function people(count: number, prefix: string): Promise<QuickAccount[]> {
  const accounts: QuickAccount[] = [];
  for (let i = 0; i < count; i++) accounts.push(await quickAccount(fixture.db.prisma, `${prefix}${i}`));
  return accounts;
}

beforeAll(async () => {
  fixture = await createAccountsFixture();
  server = await startSocketTestServer(fixture.runtime.app, { trustProxy: 1, origins: [] });
});

afterAll(async () => {
  await server?.close();
  await fixture?.close();
});

describe("handshake limits", () => {
  it("lets 200 people behind one address connect at once", async () => {
    const office = await people(200, "Office");
    const outcomes: Outcome[] = [];
    // in batches of 50, as a restart's reconnecting tabs arrive
    for (let start = 0; start < office.length; start += 50) {
      const batch = office.slice(start, start + 50).map((person) => dial({ cookie: person.cookie, address: "203.0.113.10" }));
      outcomes.push(...(await Promise.all(batch)));
    }
    expect(outcomes.filter((outcome) => !outcome.connected)).toEqual([]);
    for (const outcome of outcomes) if (outcome.connected) outcome.socket.close();
  });

  it("refuses one person's handshakes past their limit, and not their colleague's from the same address", async () => {
    const [hammer, colleague] = await people(2, "Hammer");
    const outcomes: Outcome[] = [];
    for (let i = 0; i < DEFAULT_SOCKET_LIMITS.handshakesPerUser + 5; i++) {
      const outcome = await dial({ cookie: hammer.cookie, address: "203.0.113.20" });
      if (outcome.connected) outcome.socket.close();
      outcomes.push(outcome);
    }
    expect(outcomes.slice(0, DEFAULT_SOCKET_LIMITS.handshakesPerUser).every((outcome) => outcome.connected)).toBe(true);
    expect(outcomes.slice(DEFAULT_SOCKET_LIMITS.handshakesPerUser)).toEqual(
      // with what the browser needs to try again by itself (components/socket-client.ts)
      Array.from({ length: 5 }, () => ({
        connected: false,
        error: TOO_MANY_HANDSHAKES,
        data: { code: "too_many_handshakes", retryAfterSeconds: expect.any(Number) },
      })),
    );
    expect((await dial({ cookie: colleague.cookie, address: "203.0.113.20" })).connected).toBe(true);
  });

  it("keeps a per-address limit for handshakes without a session", async () => {
    const address = "203.0.113.30";
    const errors: string[] = [];
    for (let i = 0; i < DEFAULT_SOCKET_LIMITS.anonymousHandshakesPerAddress + 1; i++) {
      const outcome = await dial({ address, cookie: i % 2 === 0 ? undefined : "better-auth.session_token=forged.value" });
      errors.push(outcome.connected ? "connected" : outcome.error);
    }
    expect(errors.slice(0, -1).every((error) => error === "unauthenticated")).toBe(true);
    expect(errors.at(-1)).toBe(TOO_MANY_HANDSHAKES);
    // a signed-in person at that address is not locked out by it
    const [person] = await people(1, "Neighbour");
    expect((await dial({ cookie: person.cookie, address })).connected).toBe(true);
  });
});

describe("a flood from one signed-in non-member", () => {
  it("closes the flooding sockets with a reason while a member's live updates keep arriving", async () => {
    const [alice, mallory] = await people(2, "Flood");
    const { id: conversationId } = await fixture.runtime.app.conversations.createConversation({
      title: "Busy",
      agentHandles: [],
      userId: alice.id,
    });
    const member = await dial({ cookie: alice.cookie, address: "198.51.100.1" });
    if (!member.connected) throw new Error("alice did not connect");
    expect((await member.socket.emitWithAck("conversation-join", { conversationId, afterSeq: 0 })).ok).toBe(true);

    // the server publishes to alice's room throughout; she must receive every batch
    let sent = 0;
    let received = 0;
    member.socket.on("conversation-events", () => void (received += 1));
    const publishing = setInterval(() => {
      sent += 1;
      server.io.to(conversationRoom(conversationId)).emit("conversation-events", []);
    }, 20);

    const heapBefore = process.memoryUsage().heapUsed;
    const closings: unknown[] = [];
    const refusals: string[] = [];
    // each new socket floods until closed, then mallory reconnects, until the handshakes run out
    for (let round = 0; round < 40; round++) {
      const outcome = await dial({ cookie: mallory.cookie, address: "198.51.100.66" });
      if (!outcome.connected) {
        refusals.push(outcome.error);
        break;
      }
      const flooder = outcome.socket;
      flooder.on("socket-closing", (notice: unknown) => closings.push(notice));
      const closed = new Promise<string>((resolve) => flooder.once("disconnect", (reason) => resolve(reason)));
      const huge = "x".repeat(MAX_SOCKET_MESSAGE_BYTES / 2);
      for (let i = 0; i < 2_000 && flooder.connected; i++) {
        flooder.emit("conversation-join", { conversationId: `not-mine-${i}`, afterSeq: 0 }, () => {});
        if (i % 100 === 0) flooder.emit("conversation-join", { conversationId: huge, afterSeq: 0 }, () => {});
        if (i % 10 === 0) flooder.emit("conversation-leave", { conversationId });
        if (i % 250 === 0) await new Promise((resolve) => setImmediate(resolve));
      }
      expect(await closed).toBe("io server disconnect");
    }
    clearInterval(publishing);
    const heapGrowth = process.memoryUsage().heapUsed - heapBefore;

    expect(closings.length).toBeGreaterThan(0);
    // mostly too many events; a round whose last refusal was an oversized one says so instead
    for (const notice of closings) expect(notice).toEqual({ reason: expect.stringMatching(/^(too_many_events|payload_too_large)$/) });
    expect(refusals).toEqual([TOO_MANY_HANDSHAKES]);
    // alice is still in her room, still answered, and missed nothing that was sent
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(received).toBe(sent);
    expect((await member.socket.emitWithAck("conversation-join", { conversationId, afterSeq: 0 })).ok).toBe(true);
    expect(heapGrowth).toBeLessThan(300 * 1024 * 1024);
  });

  it("refuses one event past the size limit with its ack, and keeps the socket", async () => {
    const [person] = await people(1, "Big");
    const outcome = await dial({ cookie: person.cookie, address: "198.51.100.2" });
    if (!outcome.connected) throw new Error("did not connect");
    const answer = await outcome.socket.emitWithAck("conversation-join", {
      conversationId: "y".repeat(DEFAULT_SOCKET_LIMITS.maxEventBytes),
      afterSeq: 0,
    });
    expect(answer).toEqual({ ok: false, error: "too_large" });
    expect(outcome.socket.connected).toBe(true);
    expect(await outcome.socket.emitWithAck("conversation-join", { conversationId: "missing", afterSeq: 0 })).toEqual({
      ok: false,
      error: "not_found",
    });
  });
});
