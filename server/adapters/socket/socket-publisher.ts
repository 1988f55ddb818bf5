/**
 * Publishes committed conversation events to Socket.IO rooms. Clients that miss one
 * (disconnect, another process emitted it) catch up by seq, so delivery here is
 * best effort by design; storage is what is durable.
 */
import type { Server } from "socket.io";
import type { EventPublisher } from "../../executor/ports.ts";
import type { ClientToServerEvents, ConversationEventDTO, ServerToClientEvents } from "../../protocol/events.ts";

export const conversationRoom = (conversationId: string) => `conv:${conversationId}`;
export const activityRoom = (conversationId: string) => `activity:${conversationId}`;

export function createSocketPublisher(io: Server<ClientToServerEvents, ServerToClientEvents>): EventPublisher {
  return {
    publish(events: ConversationEventDTO[]) {
      for (const event of events) io.to(conversationRoom(event.conversationId)).emit("conversation-event", event);
      const last = events.at(-1);
      if (last) io.to(activityRoom(last.conversationId)).emit("activity", { conversationId: last.conversationId, seq: last.seq });
    },
    runDelta(conversationId, runId, text) {
      io.to(conversationRoom(conversationId)).emit("run-delta", { conversationId, runId, text });
    },
  };
}

/** For processes without clients (tests, benchmarks, headless workers). */
export const silentPublisher: EventPublisher = { publish() {}, runDelta() {} };
