/**
 * Publishes committed conversation events to Socket.IO rooms, in `seq` order per
 * conversation.
 *
 * Order: the executor calls `publish` in commit order (a conversation's units run one at
 * a time in a process, and seq is handed out under the conversation's lock), but
 * `io.to(room).emit()` does not keep that order once the PostgreSQL adapter is attached:
 * the adapter first sends each packet to the other processes (a NOTIFY on whichever pool
 * connection is free) and only then writes it to this process's own sockets, so packets
 * overtake each other even on the publisher's own clients. So every packet of a
 * conversation goes through one queue here and the next is handed to the adapter only
 * when the previous one is out; conversations don't wait for each other.
 *
 * Clients that miss an event (disconnect, an event committed by another process arriving
 * later) wait briefly for it and else catch up by seq, so delivery here is best effort
 * by design; storage is what is durable.
 */
import type { Server } from "socket.io";
import type { EventPublisher } from "../../executor/ports.ts";
import type { ClientToServerEvents, ConversationEventDTO, ServerToClientEvents } from "../../protocol/events.ts";
import { activityRoom, conversationRoom } from "../../socket/rooms.ts";

/** socket.io-parser's PacketType.EVENT (what `emit` sends) */
const EVENT_PACKET = 2;

type AnyServer = Server<ClientToServerEvents, ServerToClientEvents> | Server;

export function createSocketPublisher(io: AnyServer): EventPublisher {
  const queue = new PerKeyQueue();
  // what `io.to(room).emit(name, data)` does, but with the adapter's promise (the
  // in-memory adapter writes synchronously; cluster adapters resolve once sent). The
  // adapter is looked up per packet: it is attached after the publisher is made.
  const send = async (room: string, name: string, data: unknown) => {
    const sent = io.of("/").adapter.broadcast(
      { type: EVENT_PACKET, data: [name, data] },
      { rooms: new Set([room]), except: new Set(), flags: {} },
    ) as unknown as Promise<void> | void;
    await sent;
  };
  return {
    publish(events: ConversationEventDTO[]) {
      const last = events.at(-1);
      if (!last) return;
      queue.run(last.conversationId, async () => {
        for (const event of events) await send(conversationRoom(event.conversationId), "conversation-event", event);
        await send(activityRoom(last.conversationId), "activity", { conversationId: last.conversationId, seq: last.seq });
      });
    },
    runDelta(conversationId, runId, text) {
      // through the same queue: streamed chunks must not overtake each other either
      queue.run(conversationId, () => send(conversationRoom(conversationId), "run-delta", { conversationId, runId, text }));
    },
  };
}

/** Runs tasks one after another per key; a failed task is logged and does not stop the queue. */
class PerKeyQueue {
  private readonly tails = new Map<string, Promise<void>>();

  run(key: string, task: () => Promise<void>): void {
    const tail = (this.tails.get(key) ?? Promise.resolve())
      .then(task)
      .catch((error: unknown) => console.error("[baton] publishing live events failed", error));
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
  }
}

/** For processes without clients (tests, benchmarks, headless workers). */
export const silentPublisher: EventPublisher = { publish() {}, runDelta() {} };
