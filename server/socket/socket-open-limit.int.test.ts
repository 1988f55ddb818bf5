/**
 * The event budget is per socket, and handshakes are limited per minute: without a bound
 * on the sockets one person holds open, an hour of 20 handshakes a minute is 1,200
 * sockets, each with its own 20 events a second. One person's open sockets are bounded
 * (per process); closing one makes room again, and other people are not affected.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccountsFixture, type AccountsFixture } from "../auth/testing/accounts.ts";
import { quickAccount } from "../auth/testing/quick-sessions.ts";
import { DEFAULT_SOCKET_LIMITS, TOO_MANY_HANDSHAKES } from "./limits.ts";
import { startSocketTestServer, type DialOutcome as Outcome, type SocketTestServer } from "./testing/socket-test-server.ts";

let fixture: AccountsFixture;
let server: SocketTestServer;
const dial = (cookie: string) => server.dial({ cookie });

beforeAll(async () => {
  fixture = await createAccountsFixture();
  // as if the handshakes came over an hour: the per-minute limit is not what is tested here
  const limits = { ...DEFAULT_SOCKET_LIMITS, handshakesPerUser: 10_000 };
  server = await startSocketTestServer(fixture.runtime.app, { trustProxy: 0, origins: [], limits });
});

afterAll(async () => {
  await server?.close();
  await fixture?.close();
});

describe("open sockets of one person", () => {
  it("are bounded; a closed one makes room, and another person still connects", async () => {
    const hoarder = await quickAccount(fixture.db.prisma, "Hoarder");
    const outcomes: Outcome[] = [];
    for (let i = 0; i < 200; i++) outcomes.push(await dial(hoarder.cookie));
    const connected = outcomes.filter((outcome): outcome is Outcome & { connected: true } => outcome.connected);
    console.log(`one person held ${connected.length} of 200 sockets open`);
    expect(connected.length).toBeGreaterThanOrEqual(20);
    expect(connected.length).toBeLessThan(200);
    expect(outcomes.at(-1)).toMatchObject({ connected: false, error: TOO_MANY_HANDSHAKES });

    connected[0].socket.close();
    // the server sees the close a moment later
    let again: Outcome = { connected: false, error: "" };
    for (let attempt = 0; attempt < 50 && !again.connected; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      again = await dial(hoarder.cookie);
    }
    expect(again.connected).toBe(true);

    const other = await quickAccount(fixture.db.prisma, "Other");
    expect((await dial(other.cookie)).connected).toBe(true);
  }, 60_000);
});
