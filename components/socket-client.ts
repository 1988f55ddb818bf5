"use client";
/** One Socket.IO connection per tab; the session cookie authenticates the handshake. */
import { io, type ManagerOptions, type Socket, type SocketOptions } from "socket.io-client";
import { isHandshakeRefusal, type ClientToServerEvents, type ServerToClientEvents } from "@/server/protocol/events.ts";

export type BatonSocket = Socket<ServerToClientEvents, ClientToServerEvents>;

/**
 * Socket.IO's default starts with HTTP long-polling and upgrades to WebSocket; the polling
 * requests of one connection must reach the same process, so several web processes behind
 * a load balancer need sticky sessions. WebSocket only (NEXT_PUBLIC_BATON_WEBSOCKET_ONLY=1
 * at build time) needs none, but a proxy that passes WebSocket upgrades.
 */
export function socketOptions(
  websocketOnly = process.env.NEXT_PUBLIC_BATON_WEBSOCKET_ONLY === "1",
): Partial<ManagerOptions & SocketOptions> {
  return {
    withCredentials: true,
    reconnectionDelayMax: 5_000,
    ...(websocketOnly ? { transports: ["websocket"] } : {}),
  };
}

let socket: BatonSocket | null = null;

export function getSocket(): BatonSocket {
  if (!socket) {
    const created: BatonSocket = io(socketOptions());
    // a handshake refused for coming too often is not retried by Socket.IO itself
    created.on("connect_error", (error) => {
      const data: unknown = (error as { data?: unknown }).data;
      if (!isHandshakeRefusal(data)) return;
      const jitter = Math.random() * 5_000;
      setTimeout(() => void created.connect(), data.retryAfterSeconds * 1000 + jitter);
    });
    socket = created;
  }
  return socket;
}
