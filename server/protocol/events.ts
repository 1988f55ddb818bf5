/**
 * Conversation events: appended under the conversation's lock with a gap-free `seq`,
 * published after commit, replayed to clients that reconnect (`after=seq`).
 * One payload type per event name; adding a kind is a compile error until handled.
 */
import type { FormDTO, MessageDTO, PlanDTO, RunDTO, StepDTO } from "./dto.ts";
import type { PlanStatus } from "../core/types.ts";
import type { ReactionDTO } from "./reactions.ts";

export const PROTOCOL_VERSION = 1;

export interface ConversationEventPayloads {
  "message-created": { message: MessageDTO };
  /** the author changed the body (editedAt set) */
  "message-edited": { message: MessageDTO };
  /** the author deleted it: the payload is the tombstone (deletedAt set, body empty) */
  "message-deleted": { message: MessageDTO };
  /** someone added or removed an emoji reaction: the message's reactions as they are now */
  "reactions-changed": { messageId: string; reactions: ReactionDTO[] };
  "plan-created": { plan: PlanDTO };
  "plan-updated": { planId: string; status: PlanStatus; endedAt: string | null };
  "step-updated": { planId: string; step: StepDTO };
  "run-updated": { run: RunDTO };
  "form-created": { form: FormDTO };
  "form-answered": { form: FormDTO };
  /** the plan ended while the form was open: it can no longer be answered */
  "form-closed": { form: FormDTO };
}

export type ConversationEventType = keyof ConversationEventPayloads;

export type ConversationEventDTO = {
  [K in ConversationEventType]: {
    v: typeof PROTOCOL_VERSION;
    conversationId: string;
    seq: number;
    type: K;
    payload: ConversationEventPayloads[K];
    createdAt: string;
  };
}[ConversationEventType];

export interface RunDelta {
  conversationId: string;
  runId: string;
  text: string;
  reset?: boolean;
}

export interface MentionNotice {
  conversationId: string;
  messageId: string;
  /** who wrote the message */
  from: string;
}

/** Socket.IO: server → client. */
export interface ServerToClientEvents {
  /**
   * the events one unit of work committed in a conversation, in seq order (one packet per
   * unit, not per event: a step's six or seven events written to every viewer's socket one
   * by one cost the server a write each)
   */
  "conversation-events": (events: ConversationEventDTO[]) => void;
  /**
   * streaming text of a live run; never stored, never replayed. `reset`: the text replaces
   * what the run showed so far (a cut model call is retried; its partial text is dropped)
   */
  "run-delta": (delta: RunDelta) => void;
  /** what a live run is waiting for ("attempt 2 of 5, retrying in 2 s"); null clears it; never stored */
  "run-status": (status: { conversationId: string; runId: string; text: string | null }) => void;
  /** whether this web node can reach its database (socket/database-status.ts): changes wait while it cannot */
  "database-status": (status: { reachable: boolean }) => void;
  /** something happened in a conversation the user belongs to (sidebar badges) */
  activity: (activity: { conversationId: string; seq: number }) => void;
  /** the user was added to or removed from a conversation (refresh the sidebar; leave a removed one) */
  "membership-changed": (change: { conversationId: string; change: "added" | "removed" }) => void;
  /** a conversation's people, roles, agents or invitations changed */
  "members-changed": (change: { conversationId: string }) => void;
  /** the user's pending conversation invitations changed */
  "invitations-changed": () => void;
  /** someone @-mentioned the user in a message (sent to the user's own sockets only) */
  "mention-received": (mention: MentionNotice) => void;
  /** someone in the conversation is typing (never stored; repeated while they type, so it expires unless renewed) */
  "typing-started": (typing: { conversationId: string; userId: string; name: string }) => void;
  /** a conversation the user belongs to was renamed, archived or unarchived ("updated"), or deleted */
  "conversation-changed": (change: { conversationId: string; change: "updated" | "deleted" }) => void;
  /** sent just before the server closes this socket for going past its limits (server/socket/limits.ts) */
  "socket-closing": (notice: { reason: SocketClosingReason }) => void;
}

/**
 * The `data` of a handshake refused for coming too often (the error's message is
 * "too many connection attempts"): Socket.IO does not retry a refusal by the server's
 * middleware by itself, so the browser connects again after `retryAfterSeconds`.
 */
export interface HandshakeRefusal {
  code: "too_many_handshakes";
  retryAfterSeconds: number;
}

export function isHandshakeRefusal(data: unknown): data is HandshakeRefusal {
  const candidate = data as Partial<HandshakeRefusal> | null;
  return (
    typeof candidate === "object" &&
    candidate !== null &&
    candidate.code === "too_many_handshakes" &&
    typeof candidate.retryAfterSeconds === "number"
  );
}

/** Why the server closed a socket: it kept sending events faster, or larger, than allowed. */
export type SocketClosingReason = "too_many_events" | "payload_too_large";

export type JoinAck = { ok: true; events: ConversationEventDTO[]; lastSeq: number } | { ok: false; error: string };

/** Socket.IO: client → server. Payloads are validated with zod on the server. */
export interface ClientToServerEvents {
  "conversation-join": (request: { conversationId: string; afterSeq: number }, ack: (result: JoinAck) => void) => void;
  "conversation-leave": (request: { conversationId: string }) => void;
  /** the user is typing in a conversation they have joined (the client throttles it) */
  "typing-started": (request: { conversationId: string }) => void;
}

export type { StepDTO, PlanDTO, RunDTO, FormDTO, MessageDTO };
