"use client";
/** One Socket.IO connection per tab; the session cookie authenticates the handshake. */
import { io, type Socket } from "socket.io-client";
import type { ClientToServerEvents, ServerToClientEvents } from "@/server/protocol/events.ts";

export type BatonSocket = Socket<ServerToClientEvents, ClientToServerEvents>;

let socket: BatonSocket | null = null;

export function getSocket(): BatonSocket {
  if (!socket) socket = io({ withCredentials: true, reconnectionDelayMax: 5_000 });
  return socket;
}
