/**
 * The event budget is per socket, and handshakes are limited per minute: without a bound
 * on the sockets one person holds open, an hour of 20 handshakes a minute is 1,200
 * sockets, each with its own 20 events a second. One person's open sockets are bounded
 * (per process); closing one makes room again, and other people are not affected.
 */
import { createServer, type Server as HttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { io as connect, type Socket } from "socket.io-client";
import type { Server } from "socket.io";
import { createAccountsFixture, type AccountsFixture } from "../auth/testing/accounts.ts";
import { quickAccount } from "../auth/testing/quick-sessions.ts";
import { attachSocketHandlers } from "./handlers.ts";
import { DEFAULT_SOCKET_LIMITS, TOO_MANY_HANDSHAKES } from "./limits.ts";
import { createSocketServer } from "./server.ts";

let fixture: AccountsFixture;
let httpServer: HttpServer;
let io: Server;
let url: string;
const open: Socket[] = [];

type Outcome = { connected: true; socket: Socket } | { connected: false; error: string };

function dial(cookie: string): Promise<Outcome> {
  const socket = connect(url, { transports: ["websocket"], reconnection: false, forceNew: true, extraHeaders: { cookie } });
  open.push(socket);
  return new Promise((resolve) => {
    socket.on("connect", () => resolve({ connected: true, socket }));
    socket.on("connect_error", (error) => resolve({ connected: false, error: error.message }));
  });
}

beforeAll(async () => {
  fixture = await createAccountsFixture();
  httpServer = createServer();
  io = createSocketServer(httpServer, { trustProxy: 0, origins: [] });
  // as if the handshakes came over an hour: the per-minute limit is not what is tested here
  attachSocketHandlers(io, { app: fixture.runtime.app, limits: { ...DEFAULT_SOCKET_LIMITS, handshakesPerUser: 10_000 } });
  await new Promise<void>((resolve) => httpServer.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(httpServer.address() as AddressInfo).port}`;
});

afterAll(async () => {
  for (const socket of open) socket.close();
  await new Promise<void>((resolve) => io?.close(() => resolve()));
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
    expect(outcomes.at(-1)).toEqual({ connected: false, error: TOO_MANY_HANDSHAKES });

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
