/**
 * Publishes committed conversation events to Socket.IO rooms, in `seq` order per
 * conversation.
 *
 * In one process: the executor calls `publish` in commit order (a conversation's units
 * run one at a time in a process, and seq is handed out under the conversation's lock),
 * but `io.to(room).emit()` does not keep that order once the PostgreSQL adapter is
 * attached: the adapter first sends each packet to the other processes (a NOTIFY on
 * whichever pool connection is free) and only then writes it to this process's own
 * sockets, so packets overtook each other even on the publisher's own clients. So every
 * packet of a conversation goes through one queue here and the next is handed to the
 * adapter only when the previous one is out; conversations don't wait for each other.
 *
 * Across processes: seq n may be committed by another process just before this one
 * commits n+1. Once `watchCluster` is on, every event goes to this process's sockets
 * after its predecessor has (its own events and other processes' alike): an event waits
 * for seq-1 at most HOLD_MS, so a process that died between commit and publish does not
 * stall the conversation. Browsers wait briefly for what is still missing, then replay by seq:
 * delivery here is best effort by design; storage is what is durable.
 */
import type { Server } from "socket.io";
import type { EventPublisher } from "../../executor/ports.ts";
import type { ClientToServerEvents, ConversationEventDTO, ServerToClientEvents } from "../../protocol/events.ts";
import { activityRoom, conversationRoom } from "../../protocol/rooms.ts";
import { log } from "../../ops/log.ts";

/** socket.io-parser's PacketType.EVENT (what `emit` sends) */
const EVENT_PACKET = 2;
/** socket.io-adapter's cluster MessageType.BROADCAST */
const CLUSTER_BROADCAST = 3;
/**
 * Longest a process holds an event for its predecessor from another process (browsers
 * wait longer, GAP_WAIT_MS, before they replay). Only a predecessor that never comes
 * costs it. Two processes on a loaded 2-core machine (live-events.int.test.ts): 6 of
 * 5,400 arrivals early with 1 s, about 2 % with 250 ms.
 */
export const HOLD_MS = 1000;

type AnyServer = Server<ClientToServerEvents, ServerToClientEvents> | Server;

export interface SocketPublisher extends EventPublisher {
  /** Call once the cluster adapter is attached: learn the seqs other processes publish. */
  watchCluster(): void;
}

export function createSocketPublisher(io: AnyServer, options: { holdMs?: number } = {}): SocketPublisher {
  const queue = new PerKeyQueue();
  const order = new SeqWatermarks();
  const holdMs = options.holdMs ?? HOLD_MS;
  // what `io.to(room).emit(name, data)` does, but with the adapter's promise (the
  // in-memory adapter writes synchronously; cluster adapters resolve once sent). The
  // adapter is looked up per packet: it is attached after the publisher is made.
  const send = async (room: string, name: string, data: unknown) => {
    const sent = io
      .of("/")
      .adapter.broadcast(
        { type: EVENT_PACKET, data: [name, data] },
        { rooms: new Set([room]), except: new Set(), flags: {} },
      ) as unknown as Promise<void> | void;
    await sent;
  };
  return {
    publish(events: ConversationEventDTO[]) {
      const first = events[0];
      const last = events.at(-1);
      if (!first || !last) return;
      queue.run(last.conversationId, async () => {
        await order.waitFor(first.conversationId, first.seq - 1, holdMs);
        try {
          for (const event of events) await send(conversationRoom(event.conversationId), "conversation-event", event);
        } finally {
          order.saw(last.conversationId, last.seq);
        }
        await send(activityRoom(last.conversationId), "activity", { conversationId: last.conversationId, seq: last.seq });
      });
    },
    runStatus(conversationId, runId, text) {
      io.to(conversationRoom(conversationId)).emit("run-status", { conversationId, runId, text });
    },
    runDelta(conversationId, runId, text, options) {
      // through the same queue: streamed chunks must not overtake each other either
      const delta = options?.reset ? { conversationId, runId, text, reset: true } : { conversationId, runId, text };
      queue.run(conversationId, () => send(conversationRoom(conversationId), "run-delta", delta));
    },
    watchCluster() {
      type ClusterMessage = { type?: number; data?: { packet?: { data?: unknown[] } } };
      const adapter = io.of("/").adapter as unknown as { onMessage?: (message: ClusterMessage, offset?: string) => unknown };
      const onMessage = adapter.onMessage?.bind(adapter);
      if (!onMessage) return;
      // another process's event goes to this process's sockets after its predecessor
      // (this process's own, or another's). Each waits on its own, not in a queue: large
      // packets are fetched from a table before they get here, so even one process's
      // events can come in out of order, and they must not wait behind each other.
      adapter.onMessage = (message, offset) => {
        const [name, event] = message.type === CLUSTER_BROADCAST ? (message.data?.packet?.data ?? []) : [];
        const { conversationId, seq } = (name === "conversation-event" ? event : {}) as Partial<ConversationEventDTO>;
        if (typeof conversationId !== "string" || !Number.isInteger(seq)) return onMessage(message, offset);
        void order.waitFor(conversationId, seq! - 1, holdMs).then(() => {
          try {
            onMessage(message, offset);
          } finally {
            order.saw(conversationId, seq!);
          }
        });
      };
    },
  };
}

/**
 * The highest seq that has gone out in this process, per conversation, and waiters for
 * a seq to go out. A conversation not seen for a while is forgotten (then nothing waits).
 */
class SeqWatermarks {
  private readonly highest = new Map<string, { seq: number; at: number }>();
  private readonly waiters = new Map<string, Set<{ seq: number; wake(): void }>>();
  private sweptAt = Date.now();

  saw(conversationId: string, seq: number): void {
    const now = Date.now();
    const known = this.highest.get(conversationId);
    if (!known || seq > known.seq) this.highest.set(conversationId, { seq, at: now });
    for (const waiter of this.waiters.get(conversationId) ?? []) if (seq >= waiter.seq) waiter.wake();
    if (now - this.sweptAt > 60_000) {
      this.sweptAt = now;
      for (const [id, entry] of this.highest) if (now - entry.at > 600_000) this.highest.delete(id);
    }
  }

  /** Resolves once `seq` has gone out, at once if nothing is known, or after `timeoutMs`. */
  waitFor(conversationId: string, seq: number, timeoutMs: number): Promise<void> {
    const known = this.highest.get(conversationId);
    if (!known || known.seq >= seq || timeoutMs <= 0) return Promise.resolve();
    return new Promise((resolve) => {
      const set = this.waiters.get(conversationId) ?? new Set();
      this.waiters.set(conversationId, set);
      const waiter = {
        seq,
        wake: () => {
          clearTimeout(timer);
          set.delete(waiter);
          if (set.size === 0) this.waiters.delete(conversationId);
          resolve();
        },
      };
      const timer = setTimeout(waiter.wake, timeoutMs);
      set.add(waiter);
    });
  }
}

/** Runs tasks one after another per key; a failed task is logged and does not stop the queue. */
class PerKeyQueue {
  private readonly tails = new Map<string, Promise<void>>();

  run(key: string, task: () => Promise<void>): void {
    const tail = (this.tails.get(key) ?? Promise.resolve())
      .then(task)
      .catch((error: unknown) => log.error({ err: error, conversationId: key }, "publishing live events failed"));
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
  }
}

/** For processes without clients (tests, benchmarks, headless workers). */
export const silentPublisher: EventPublisher = { publish() {}, runDelta() {} };
