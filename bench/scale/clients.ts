/**
 * A child process of the scale benchmark holding a share of the Socket.IO clients, so
 * that the clients' own event loop is not the one the benchmark measures with. Told
 * by IPC whom to connect (`connect`), it records every delivery of a conversation event
 * (conversation, seq, the server's createdAt, the receiving moment) and its own
 * event-loop delay, and sends them back on `report`.
 */
import { monitorEventLoopDelay } from "node:perf_hooks";
import { io, type Socket } from "socket.io-client";
import type { ConversationEventDTO, JoinAck } from "../../server/protocol/events.ts";

export interface ClientAssignment {
  baseURL: string;
  cookie: string;
  conversationId: string;
  address: string;
  /** which web node baseURL is (0, 1, …): latency is split by node */
  node: number;
}

/** one delivery of a conversation event: [conversationId, seq, createdAt ms, received ms, the client's number in its process, its web node] */
export type Delivery = [string, number, number, number, number, number];

export type ToClients = { kind: "connect"; clients: ClientAssignment[] } | { kind: "report" } | { kind: "close" };
export type FromClients =
  | { kind: "connected"; joined: { conversationId: string; lastSeq: number }[] }
  | { kind: "failed"; error: string }
  | {
      kind: "report";
      deliveries: Delivery[];
      loopDelayMs: { p50: number; p99: number; max: number };
    };

const sockets: Socket[] = [];
const deliveries: Delivery[] = [];
const loop = monitorEventLoopDelay({ resolution: 10 });
const send = (message: FromClients) => process.send?.(message);

async function connectOne(client: ClientAssignment): Promise<{ conversationId: string; lastSeq: number }> {
  const socket = io(client.baseURL, {
    extraHeaders: { cookie: client.cookie, "x-forwarded-for": client.address },
    transports: ["websocket"],
    reconnection: false,
  });
  const number = sockets.push(socket) - 1;
  socket.on("conversation-events", (events: ConversationEventDTO[]) => {
    const now = Date.now();
    for (const event of events) deliveries.push([event.conversationId, event.seq, Date.parse(event.createdAt), now, number, client.node]);
  });
  await new Promise<void>((resolve, reject) => {
    socket.once("connect", () => resolve());
    socket.once("connect_error", (error) => reject(error));
  });
  const ack = await new Promise<JoinAck>((resolve) =>
    socket.emit("conversation-join", { conversationId: client.conversationId, afterSeq: 0 }, resolve),
  );
  if (!ack.ok) throw new Error(`conversation-join: ${ack.error}`);
  return { conversationId: client.conversationId, lastSeq: ack.lastSeq };
}

process.on("message", (message: ToClients) => {
  if (message.kind === "connect") {
    void (async () => {
      try {
        const joined = [];
        // a few at a time, as browsers arrive; all at once would measure the handshake storm instead
        for (let start = 0; start < message.clients.length; start += 25) {
          joined.push(...(await Promise.all(message.clients.slice(start, start + 25).map(connectOne))));
        }
        loop.enable();
        send({ kind: "connected", joined });
      } catch (error) {
        send({ kind: "failed", error: String(error) });
      }
    })();
  } else if (message.kind === "report") {
    loop.disable();
    const ms = (ns: number) => ns / 1e6;
    send({
      kind: "report",
      deliveries,
      loopDelayMs: { p50: ms(loop.percentile(50)), p99: ms(loop.percentile(99)), max: ms(loop.max) },
    });
  } else {
    for (const socket of sockets) socket.close();
    process.exit(0);
  }
});
