"use client";
/** One Socket.IO connection per tab; the session cookie authenticates the handshake. */
import { io, type ManagerOptions, type Socket, type SocketOptions } from "socket.io-client";
import type { ClientToServerEvents, ServerToClientEvents } from "@/server/protocol/events.ts";

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
  if (!socket) socket = io(socketOptions());
  return socket;
}
