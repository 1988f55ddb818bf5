import type { MessageDTO } from "../protocol/dto.ts";

/** A plain text message by a person, as the wire carries it; tests override what they look at. */
export const messageDTO = (over: Partial<MessageDTO> = {}): MessageDTO => ({
  id: "m",
  conversationId: "c",
  authorKind: "user",
  author: { id: "u1", name: "Ada" },
  kind: "text",
  body: "",
  notice: null,
  mentions: [],
  planId: null,
  stepId: null,
  runId: null,
  formId: null,
  attachments: [],
  createdAt: "2026-01-01T00:00:00.000Z",
  editedAt: null,
  deletedAt: null,
  reactions: [],
  ...over,
});
