/**
 * Baton's HTTP server without the pages: database (migrated, seeded), executor,
 * Socket.IO (with the PostgreSQL adapter when there are several processes) and a
 * readiness probe. `server/index.ts` adds Next.js on top; tests start it bare in
 * child processes to prove several processes start and serve side by side.
 */
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Server } from "socket.io";
import { createAdapter } from "@socket.io/postgres-adapter";
import type { Config } from "./config/config.ts";
import { bootCore, type BootedCore } from "./boot.ts";
import type { Database } from "./db/database.ts";
import type { AgentRunner } from "./executor/ports.ts";
import { createSocketPublisher } from "./adapters/socket/socket-publisher.ts";
import { attachSocketHandlers } from "./socket/handlers.ts";
import { CLIENT_IP_HEADER } from "./auth/auth.ts";
import { refuseOversizedBody } from "./http/body-gate.ts";
import type { ClientToServerEvents, ServerToClientEvents } from "./protocol/events.ts";

export type RequestHandler = (request: IncomingMessage, response: ServerResponse) => void;

export interface ServedBaton {
  core: BootedCore;
  io: Server<ClientToServerEvents, ServerToClientEvents>;
  httpServer: HttpServer;
  /** the port actually listened on (config.port 0 picks a free one) */
  port: number;
  close(): Promise<void>;
}

/** Answered by the custom server itself: 200 once the database is migrated and seeded. */
export const READINESS_PATH = "/healthz";

export async function serveBaton(input: {
  config: Config;
  createRunner: (db: Database) => AgentRunner;
  instanceId?: string;
  /** prepares the page handler (Next.js) once the core is up; without it only the probe and Socket.IO answer */
  pages?: () => Promise<RequestHandler>;
}): Promise<ServedBaton> {
  const { config } = input;
  const httpServer = createServer();
  const io = new Server<ClientToServerEvents, ServerToClientEvents>(httpServer, {
    // same-origin only: the app and its socket share one host and port
    cors: { origin: false },
    maxHttpBufferSize: 1e6,
  });

  const publisher = createSocketPublisher(io);
  const core = await bootCore({
    config,
    publisher,
    createRunner: input.createRunner,
    instanceId: input.instanceId,
  });
  if (core.db.kind === "postgres" && core.db.pool) {
    // several processes: rooms span all of them through PostgreSQL NOTIFY (its table is
    // created with the database's own setup, under a lock: see database.ts)
    io.adapter(createAdapter(core.db.pool));
    publisher.watchCluster();
  }
  attachSocketHandlers(io, { prisma: core.db.prisma });

  const pages = input.pages ? await input.pages() : null;
  httpServer.on("request", (request, response) => {
    // Socket.IO answers its own path; everything else is the probe's or Next's
    if (request.url?.startsWith("/socket.io/")) return;
    if (request.url === READINESS_PATH) {
      response.writeHead(200, { "content-type": "application/json", "cache-control": "no-store" });
      response.end(JSON.stringify({ ok: true }));
      return;
    }
    if (!pages) {
      response.writeHead(404).end();
      return;
    }
    // the body cap before Next or any authentication sees the request
    if (refuseOversizedBody(request, response, config.maxBodyBytes)) return;
    // the address rate limits key on: set here from the socket, so clients cannot forge it
    request.headers[CLIENT_IP_HEADER] = request.socket.remoteAddress ?? "";
    pages(request, response);
  });

  await new Promise<void>((resolve) => httpServer.listen(config.port, config.host, resolve));
  const port = (httpServer.address() as AddressInfo).port;

  let closing: Promise<void> | undefined;
  return {
    core,
    io,
    httpServer,
    port,
    close: () =>
      (closing ??= (async () => {
        // io.close() also closes the HTTP server
        await new Promise<void>((resolve) => io.close(() => resolve()));
        await core.close();
      })()),
  };
}
