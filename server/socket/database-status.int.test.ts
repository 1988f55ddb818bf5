/**
 * The live indicator's database half, over real sockets: the outage state (as pg-guard
 * tells it) reaches every connected browser once it settles, and a browser that connects
 * during the outage hears of it at once.
 */
import { createServer, type Server as HttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { io as connect, type Socket } from "socket.io-client";
import type { Server } from "socket.io";
import { createAccountsFixture, type AccountsFixture } from "../auth/testing/accounts.ts";
import { quickAccount } from "../auth/testing/quick-sessions.ts";
import { announceDatabaseStatus } from "./database-status.ts";
import { attachSocketHandlers } from "./handlers.ts";
import { createSocketServer } from "./server.ts";

let fixture: AccountsFixture;
let httpServer: HttpServer;
let io: Server;
let url: string;
let tell: (reachable: boolean) => void = () => {};
const open: Socket[] = [];

function dial(cookie: string): { socket: Socket; statuses: boolean[]; connected: Promise<void> } {
  const socket = connect(url, { transports: ["websocket"], reconnection: false, forceNew: true, extraHeaders: { cookie } });
  open.push(socket);
  const statuses: boolean[] = [];
  socket.on("database-status", (status: { reachable: boolean }) => statuses.push(status.reachable));
  return { socket, statuses, connected: new Promise((resolve) => socket.on("connect", () => resolve())) };
}

const until = async (check: () => boolean) => {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
};

beforeAll(async () => {
  fixture = await createAccountsFixture();
  httpServer = createServer();
  io = createSocketServer(httpServer, { trustProxy: 0, origins: [] });
  const databaseStatus = announceDatabaseStatus({
    subscribe: (listener) => ((tell = listener), () => (tell = () => {})),
    emitToAll: (status) => io.local.emit("database-status", status),
    settleMs: 50,
  });
  attachSocketHandlers(io, { app: fixture.runtime.app, databaseStatus });
  await new Promise<void>((resolve) => httpServer.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(httpServer.address() as AddressInfo).port}`;
});

afterAll(async () => {
  for (const socket of open) socket.close();
  await new Promise<void>((resolve) => io?.close(() => resolve()));
  await fixture?.close();
});

describe("database-status", () => {
  it("tells connected browsers when the node loses and regains its database, and new ones during it", async () => {
    const person = await quickAccount(fixture.db.prisma, "Watcher");
    const before = dial(person.cookie);
    await before.connected;
    expect(before.statuses).toEqual([]);

    tell(false);
    await until(() => before.statuses.length === 1);
    expect(before.statuses).toEqual([false]);

    // the session was looked up before the outage was simulated: the handshake still works here
    const during = dial(person.cookie);
    await during.connected;
    await until(() => during.statuses.length === 1);
    expect(during.statuses).toEqual([false]);

    tell(true);
    await until(() => before.statuses.length === 2 && during.statuses.length === 2);
    expect(before.statuses).toEqual([false, true]);
    expect(during.statuses).toEqual([false, true]);
  }, 60_000);
});
