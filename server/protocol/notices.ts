/**
 * Notices on the wire: text the server wrote into a conversation, as a catalogue key and
 * values beside the English body. The list of keys and the shape have their one home in
 * the core (core/notices.ts), which writes them; the browser imports them from here and
 * words a notice with next-intl's `notices.*` (components/conversation/notice-text.tsx).
 */
export { isNoticeKey, noticeKeys, noticeSchema, readNotice, type NoticeKey, type StoredNotice } from "../core/notices.ts";
