/** A conversation's snapshot with nothing in it yet: where store, sync and contract tests start. */
import type { Snapshot } from "../protocol/rest/conversations.ts";

export function emptySnapshot(conversationId: string, { lastSeq = 0, title = "t" }: { lastSeq?: number; title?: string } = {}): Snapshot {
  return {
    conversation: { id: conversationId, title, commanderReplies: "auto", archivedAt: null },
    lastSeq,
    agents: [],
    members: [],
    messages: [],
    hasEarlierMessages: false,
    plans: [],
    forms: [],
    runs: [],
    endedUsage: { total: { tokens: 0, cost: 0, runs: 0, estimated: false }, byPlan: {} },
  };
}
