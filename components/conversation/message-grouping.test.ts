import { describe, expect, it } from "vitest";
import type { MessageDTO } from "@/server/protocol/dto.ts";
import { continuesGroup, GROUP_WINDOW_MS } from "./message-grouping.ts";

const at = (ms: number) => new Date(Date.UTC(2026, 0, 1) + ms).toISOString();
const message = (over: Partial<MessageDTO>): MessageDTO => ({
  id: "m",
  conversationId: "c",
  authorKind: "user",
  author: { id: "alice", name: "Alice" },
  kind: "text",
  body: "hi",
  notice: null,
  mentions: [],
  planId: null,
  stepId: null,
  runId: null,
  formId: null,
  attachments: [],
  createdAt: at(0),
  editedAt: null,
  deletedAt: null,
  reactions: [],
  ...over,
});

describe("continuesGroup", () => {
  const first = message({});
  it("groups the same author within five minutes", () => {
    expect(continuesGroup(first, message({ createdAt: at(GROUP_WINDOW_MS - 1) }))).toBe(true);
    expect(continuesGroup(first, message({ createdAt: at(GROUP_WINDOW_MS) }))).toBe(false);
  });
  it("starts a new block for another author, the first message, an announcement or a tombstone", () => {
    expect(continuesGroup(undefined, first)).toBe(false);
    expect(continuesGroup(first, message({ author: { id: "bob", name: "Bob" } }))).toBe(false);
    expect(continuesGroup(first, message({ authorKind: "agent", author: { id: "alice", name: "Alice" } }))).toBe(false);
    expect(continuesGroup(first, message({ kind: "outcome" }))).toBe(false);
    expect(continuesGroup(message({ deletedAt: at(1) }), message({}))).toBe(false);
  });
});
