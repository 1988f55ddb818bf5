/**
 * A Socket.IO server with Baton's handlers on a free loopback port, for tests that dial it
 * as browsers would (real handshakes, cookies, a trusted proxy's address, origins). Every
 * socket a test dials is closed with the server.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { io as connect, type Socket } from "socket.io-client";
import type { Server } from "socket.io";
import type { Application } from "../../services/application.ts";
import { attachSocketHandlers } from "../handlers.ts";
import type { SocketLimits } from "../limits.ts";
import { createSocketServer } from "../server.ts";

export type DialOutcome = { connected: true; socket: Socket } | { connected: false; error: string; data?: unknown };

export interface DialOptions {
  cookie?: string;
  origin?: string;
  /** sent as a trusted proxy's X-Forwarded-For (the server trusts one hop when told to) */
  address?: string;
  transport?: "polling" | "websocket";
}

export interface SocketTestServer {
  io: Server;
  url: string;
  /** a new client socket, resolved once it connected or was refused (with the refusal's message and data) */
  dial(options?: DialOptions): Promise<DialOutcome>;
  close(): Promise<void>;
}

export async function startSocketTestServer(
  app: Pick<Application, "live">,
  options: { trustProxy: number; origins: string[]; limits?: SocketLimits },
): Promise<SocketTestServer> {
  const httpServer = createServer();
  const io = createSocketServer(httpServer, options);
  attachSocketHandlers(io, { app, limits: options.limits });
  await new Promise<void>((resolve) => httpServer.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(httpServer.address() as AddressInfo).port}`;
  const open: Socket[] = [];
  return {
    io,
    url,
    dial(dialed = {}) {
      const socket = connect(url, {
        transports: [dialed.transport ?? "websocket"],
        reconnection: false,
        forceNew: true,
        extraHeaders: {
          ...(dialed.cookie ? { cookie: dialed.cookie } : {}),
          ...(dialed.origin ? { origin: dialed.origin } : {}),
          ...(dialed.address ? { "x-forwarded-for": dialed.address } : {}),
        },
      });
      open.push(socket);
      return new Promise((resolve) => {
        socket.on("connect", () => resolve({ connected: true, socket }));
        socket.on("connect_error", (error) =>
          resolve({ connected: false, error: error.message, data: (error as { data?: unknown }).data }),
        );
      });
    },
    async close() {
      for (const socket of open) socket.close();
      await new Promise<void>((resolve) => io.close(() => resolve()));
    },
  };
}
