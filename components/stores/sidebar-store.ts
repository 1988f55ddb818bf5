/** Sidebar activity: which conversations changed since the user last looked. */
import { create } from "zustand";

interface SidebarStore {
  activeConversationId: string | null;
  unread: Record<string, number>;
  mobileOpen: boolean;
  setActive: (conversationId: string | null) => void;
  noteActivity: (conversationId: string) => void;
  setMobileOpen: (open: boolean) => void;
}

export const useSidebarStore = create<SidebarStore>()((set, get) => ({
  activeConversationId: null,
  unread: {},
  mobileOpen: false,
  setActive(conversationId) {
    const { [conversationId ?? ""]: _seen, ...unread } = get().unread;
    set({ activeConversationId: conversationId, unread });
  },
  noteActivity(conversationId) {
    if (conversationId === get().activeConversationId) return;
    const unread = get().unread;
    set({ unread: { ...unread, [conversationId]: (unread[conversationId] ?? 0) + 1 } });
  },
  setMobileOpen(open) {
    set({ mobileOpen: open });
  },
}));
