"use client";
/**
 * Keeps the store in step with the server: joins the conversation's room with the
 * last applied seq (on mount and on every reconnect), applies replayed and live
 * events through the seq-ordered store, and re-joins when a gap shows up.
 */
import { useEffect, useState } from "react";
import type { ConversationEventDTO, JoinAck } from "@/server/protocol/events.ts";
import { apiFetch } from "../api-client.ts";
import { getSocket } from "../socket-client.ts";
import { useConversationStore, type Snapshot } from "../stores/conversation-store.ts";
import { useSidebarStore } from "../stores/sidebar-store.ts";

export type ConnectionState = "connecting" | "live" | "offline";

export function useConversationSync(snapshot: Snapshot): ConnectionState {
  const conversationId = snapshot.conversation.id;
  const [connection, setConnection] = useState<ConnectionState>("connecting");

  useEffect(() => {
    const store = useConversationStore.getState();
    // a reload of the same page keeps newer state from events over an older snapshot
    if (store.conversationId !== conversationId || store.lastSeq < snapshot.lastSeq) store.load(snapshot);
    useSidebarStore.getState().setActive(conversationId);

    const socket = getSocket();
    let joining = false;
    let again = false;

    const join = () => {
      if (joining) {
        again = true;
        return;
      }
      joining = true;
      const afterSeq = useConversationStore.getState().lastSeq;
      socket.emit("conversation-join", { conversationId, afterSeq }, async (ack: JoinAck) => {
        if (ack.ok) {
          setConnection("live");
          const gap = useConversationStore.getState().applyEvents(ack.events);
          if (gap) again = true;
        } else if (ack.error === "replay_too_long") {
          // too far behind to replay: start again from a fresh snapshot, then join from its seq
          try {
            useConversationStore.getState().load(await apiFetch<Snapshot>(`/api/conversations/${conversationId}`));
            again = true;
          } catch {
            setConnection("offline");
          }
        } else if (ack.error !== "not_found") {
          // a passing server error: try again shortly rather than stay "reconnecting" forever
          setTimeout(() => socket.connected && join(), 2_000);
        }
        joining = false;
        if (again) {
          again = false;
          join();
        }
      });
    };

    const onEvent = (event: ConversationEventDTO) => {
      if (event.conversationId !== conversationId) return;
      if (useConversationStore.getState().applyEvents([event])) join();
    };
    const onDelta = (delta: { conversationId: string; runId: string; text: string }) => useConversationStore.getState().appendDelta(delta);
    const onDisconnect = () => setConnection("offline");

    socket.on("connect", join);
    socket.on("disconnect", onDisconnect);
    socket.on("conversation-event", onEvent);
    socket.on("run-delta", onDelta);
    if (socket.connected) join();

    return () => {
      socket.off("connect", join);
      socket.off("disconnect", onDisconnect);
      socket.off("conversation-event", onEvent);
      socket.off("run-delta", onDelta);
      socket.emit("conversation-leave", { conversationId });
      useSidebarStore.getState().setActive(null);
    };
    // the snapshot is only the starting point; later renders must not reload it
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [conversationId]);

  return connection;
}
