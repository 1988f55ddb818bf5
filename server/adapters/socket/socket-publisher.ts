/**
 * Publishes committed conversation events to Socket.IO rooms, in `seq` order per
 * conversation.
 *
 * This process's own sockets get a unit's events at once, as one packet per socket
 * ("conversation-events"), written synchronously in the order the executor publishes (a
 * conversation's units run one at a time in a process, and seq is handed out under the
 * conversation's lock).
 *
 * Other processes (the PostgreSQL adapter, once `watchCluster` is on) get a unit's events
 * as ONE cluster message, not one per event: every message is a NOTIFY round trip, and a
 * step's six or seven events sent one at a time queued up behind each other faster than
 * steps ended (the fan-out to another process's browsers took over 100 ms at the median).
 * The messages of a conversation are sent one at a time, each after the previous one is
 * out, so they arrive in order; the receiving process unpacks them and writes each event
 * to its own sockets as if it were its own.
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
import type { ClientToServerEvents, ConversationEventDTO, RunDelta, ServerToClientEvents } from "../../protocol/events.ts";
import { activityRoom, conversationRoom } from "../../protocol/rooms.ts";
import { log } from "../../ops/log.ts";

/** socket.io-parser's PacketType.EVENT (what `emit` sends) */
const EVENT_PACKET = 2;
/** socket.io-adapter's cluster MessageType.BROADCAST */
const CLUSTER_BROADCAST = 3;
/** what one cluster message carries: a unit's events, or a run's streamed text */
const CLUSTER_EVENTS = "baton:conversation-events";
const CLUSTER_DELTA = "baton:run-delta";
/**
 * Longest a process holds an event for its predecessor from another process (browsers
 * wait longer, GAP_WAIT_MS, before they replay). Only a predecessor that never comes
 * costs it. Two processes on a loaded 2-core machine (live-events.int.test.ts): 6 of
 * 5,400 arrivals early with 1 s, about 2 % with 250 ms.
 */
export const HOLD_MS = 1000;

type AnyServer = Server<ClientToServerEvents, ServerToClientEvents> | Server;

export interface SocketPublisher extends EventPublisher {
  /** Call once the cluster adapter is attached: send to the other processes, and learn the seqs they publish. */
  watchCluster(): void;
}

export function createSocketPublisher(io: AnyServer, options: { holdMs?: number } = {}): SocketPublisher {
  const queue = new PerKeyQueue();
  const order = new SeqWatermarks();
  const holdMs = options.holdMs ?? HOLD_MS;
  let clustered = false;
  const local = (room: string, name: string, data: unknown) =>
    (io.local.to(room).emit as (name: string, data: unknown) => boolean)(name, data);
  /** writes a unit's events to this process's sockets as one packet, then the sidebar's activity */
  const deliver = (events: ConversationEventDTO[]) => {
    const last = events.at(-1)!;
    try {
      local(conversationRoom(last.conversationId), "conversation-events", events);
    } finally {
      order.saw(last.conversationId, last.seq);
    }
    local(activityRoom(last.conversationId), "activity", { conversationId: last.conversationId, seq: last.seq });
  };
  /**
   * One message to the other processes and none to this one's sockets (the room is both
   * the target and excluded here; the receiver unpacks it, see watchCluster). Resolves
   * once it is out, so a conversation's messages leave in order.
   */
  const toOtherProcesses = async (conversationId: string, name: string, data: unknown) => {
    const room = conversationRoom(conversationId);
    await (io
      .of("/")
      .adapter.broadcast(
        { type: EVENT_PACKET, data: [name, data] },
        { rooms: new Set([room]), except: new Set([room]), flags: {} },
      ) as unknown as Promise<void> | void);
  };
  return {
    publish(events: ConversationEventDTO[]) {
      const first = events[0];
      const last = events.at(-1);
      if (!first || !last) return;
      queue.run(last.conversationId, async () => {
        await order.waitFor(first.conversationId, first.seq - 1, holdMs);
        deliver(events);
        if (clustered) await toOtherProcesses(last.conversationId, CLUSTER_EVENTS, events);
      });
    },
    runStatus(conversationId, runId, text) {
      io.to(conversationRoom(conversationId)).emit("run-status", { conversationId, runId, text });
    },
    runDelta(conversationId, runId, text, options) {
      // through the same queue: streamed chunks must not overtake each other, nor the events before them
      const delta: RunDelta = options?.reset ? { conversationId, runId, text, reset: true } : { conversationId, runId, text };
      queue.run(conversationId, async () => {
        local(conversationRoom(conversationId), "run-delta", delta);
        if (clustered) await toOtherProcesses(conversationId, CLUSTER_DELTA, delta);
      });
    },
    watchCluster() {
      type ClusterMessage = { uid?: string; type?: number; data?: { packet?: { data?: unknown[] } } };
      const adapter = io.of("/").adapter as unknown as { uid?: string; onMessage?: (message: ClusterMessage, offset?: string) => unknown };
      const onMessage = adapter.onMessage?.bind(adapter);
      if (!onMessage) return;
      clustered = true;
      // another process's events go to this process's sockets after their predecessor
      // (this process's own, or another's). Each message waits on its own, not in a queue:
      // large ones are fetched from a table before they get here, so even one process's
      // messages can come in out of order, and they must not wait behind each other.
      adapter.onMessage = (message, offset) => {
        // the adapter hears its own messages too (and drops them): this process wrote them already
        if (message.uid !== undefined && message.uid === adapter.uid) return onMessage(message, offset);
        const [name, data] = message.type === CLUSTER_BROADCAST ? (message.data?.packet?.data ?? []) : [];
        if (name === CLUSTER_DELTA) {
          const delta = data as RunDelta;
          if (typeof delta?.conversationId === "string") local(conversationRoom(delta.conversationId), "run-delta", delta);
          return;
        }
        const events = (name === CLUSTER_EVENTS && Array.isArray(data) ? data : []) as ConversationEventDTO[];
        const first = events[0];
        if (typeof first?.conversationId !== "string" || !Number.isInteger(first.seq)) return onMessage(message, offset);
        void order.waitFor(first.conversationId, first.seq - 1, holdMs).then(() => deliver(events));
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
