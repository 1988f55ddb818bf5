/** Sidebar activity: which conversations changed since the user last looked. */
import { create } from "zustand";

interface SidebarStore {
  activeConversationId: string | null;
  unread: Record<string, number>;
  /** messages that @-mentioned the user, by conversation, since they last opened it */
  mentions: Record<string, number>;
  mobileOpen: boolean;
  setActive: (conversationId: string | null) => void;
  noteActivity: (conversationId: string) => void;
  noteMention: (conversationId: string) => void;
  setMobileOpen: (open: boolean) => void;
}

export const useSidebarStore = create<SidebarStore>()((set, get) => ({
  activeConversationId: null,
  unread: {},
  mentions: {},
  mobileOpen: false,
  setActive(conversationId) {
    const { [conversationId ?? ""]: _seen, ...unread } = get().unread;
    const { [conversationId ?? ""]: _read, ...mentions } = get().mentions;
    set({ activeConversationId: conversationId, unread, mentions });
  },
  noteActivity(conversationId) {
    if (conversationId === get().activeConversationId) return;
    const unread = get().unread;
    set({ unread: { ...unread, [conversationId]: (unread[conversationId] ?? 0) + 1 } });
  },
  noteMention(conversationId) {
    if (conversationId === get().activeConversationId) return;
    const mentions = get().mentions;
    set({ mentions: { ...mentions, [conversationId]: (mentions[conversationId] ?? 0) + 1 } });
  },
  setMobileOpen(open) {
    set({ mobileOpen: open });
  },
}));
