"use client";
/**
 * Keeps the open conversation's store in step with the server (see conversation-sync.ts):
 * joins with the last applied seq on mount and on every reconnect, applies live events
 * in seq order, and replays only a gap that stays open for a moment.
 */
import { useEffect, useState } from "react";
import { api } from "../api-client.ts";
import { getSocket } from "../socket-client.ts";
import type { Snapshot } from "@/server/protocol/rest/conversations.ts";
import { useConversationStore } from "../stores/conversation-store.ts";
import { useSidebarStore } from "../stores/sidebar-store.ts";
import { ConversationSync, type ConnectionState } from "./conversation-sync.ts";

export type { ConnectionState };

export function useConversationSync(snapshot: Snapshot): ConnectionState {
  const conversationId = snapshot.conversation.id;
  const [connection, setConnection] = useState<ConnectionState>("connecting");

  useEffect(() => {
    const store = useConversationStore.getState();
    // a reload of the same page keeps newer state from events over an older snapshot
    if (store.conversationId !== conversationId || store.lastSeq < snapshot.lastSeq) store.load(snapshot);
    useSidebarStore.getState().setActive(conversationId);

    const sync = new ConversationSync({
      socket: getSocket(),
      conversationId,
      store: useConversationStore,
      onConnection: setConnection,
      loadSnapshot: () => api.conversations.get({ conversationId }),
    });
    sync.start();
    return () => {
      sync.stop();
      useSidebarStore.getState().setActive(null);
    };
    // the snapshot is only the starting point; later renders must not reload it
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [conversationId]);

  return connection;
}
