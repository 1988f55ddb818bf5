/**
 * Keeps a conversation store in step with the server over one socket, without React
 * (the hook in use-conversation-sync.ts wires it to the page; tests drive it directly).
 *
 * - Joins the conversation's room with the last applied seq on start and on every
 *   (re)connect: that replay is how a client catches up after a real disconnect.
 * - Applies live events through the seq-ordered store. An event that arrives early (its
 *   predecessor is still on the way, e.g. committed by another server process) waits in
 *   the store; only if the gap is still open after `gapWaitMs` does it re-join to replay
 *   the missing events from the database.
 */
import type { ConversationEventDTO, JoinAck, RunDelta } from "@/server/protocol/events.ts";
import type { Snapshot } from "@/server/protocol/rest/conversations.ts";
import type { ConversationStoreApi } from "../stores/conversation-store.ts";
import type { BatonSocket } from "../socket-client.ts";

/** noDatabase: the socket is live, but its web node cannot reach the database (changes wait) */
export type ConnectionState = "connecting" | "live" | "noDatabase" | "offline";

/** how long an early event waits for the events before it before the client replays */
export const GAP_WAIT_MS = 1_500;
/** after a passing server error on join */
const JOIN_RETRY_MS = 2_000;

/** The part of a Socket.IO client socket this uses. */
export type SyncSocket = Pick<BatonSocket, "connected" | "on" | "off" | "emit">;

export interface SyncStats {
  /** live events that arrived before one they follow */
  early: number;
  /** joins (each replays stored events after the last applied seq) */
  joins: number;
  /** of those, joins because a gap stayed open for gapWaitMs */
  gapReplays: number;
}

export class ConversationSync {
  readonly stats: SyncStats = { early: 0, joins: 0, gapReplays: 0 };
  private joining = false;
  private joined = false;
  /** what the web node last said (database-status); a new connection is told again if not */
  private databaseReachable = true;
  private again = false;
  private stopped = false;
  private gapTimer: ReturnType<typeof setTimeout> | undefined;
  private retryTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly options: {
      socket: SyncSocket;
      conversationId: string;
      store: ConversationStoreApi;
      onConnection?: (state: ConnectionState) => void;
      /** a fresh snapshot, when the client is too far behind to replay */
      loadSnapshot: () => Promise<Snapshot>;
      gapWaitMs?: number;
    },
  ) {}

  start(): void {
    const { socket } = this.options;
    socket.on("connect", this.join);
    socket.on("disconnect", this.onDisconnect);
    socket.on("conversation-events", this.onEvents);
    socket.on("run-delta", this.onDelta);
    socket.on("run-status", this.onStatus);
    socket.on("database-status", this.onDatabaseStatus);
    if (socket.connected) this.join();
  }

  stop(): void {
    this.stopped = true;
    const { socket, conversationId } = this.options;
    socket.off("connect", this.join);
    socket.off("disconnect", this.onDisconnect);
    socket.off("conversation-events", this.onEvents);
    socket.off("run-delta", this.onDelta);
    socket.off("run-status", this.onStatus);
    socket.off("database-status", this.onDatabaseStatus);
    clearTimeout(this.gapTimer);
    clearTimeout(this.retryTimer);
    socket.emit("conversation-leave", { conversationId });
  }

  /** the server has answered the last join: from here on, events reach this socket live */
  get isJoined(): boolean {
    return this.joined;
  }

  private readonly join = (): void => {
    if (this.stopped) return;
    if (this.joining) {
      this.again = true;
      return;
    }
    this.joining = true;
    this.stats.joins++;
    const { socket, conversationId, store } = this.options;
    const afterSeq = store.getState().lastSeq;
    socket.emit("conversation-join", { conversationId, afterSeq }, async (ack: JoinAck) => {
      if (this.stopped) return;
      if (ack.ok) {
        this.joined = true;
        this.reportLive();
        this.afterApply(store.getState().applyEvents(ack.events));
      } else if (ack.error === "replay_too_long") {
        // too far behind to replay: start again from a fresh snapshot, then join from its seq
        try {
          store.getState().load(await this.options.loadSnapshot());
          this.again = true;
        } catch {
          this.options.onConnection?.("offline");
        }
      } else if (ack.error !== "not_found") {
        // a passing server error: try again shortly rather than stay "reconnecting" forever
        this.retryTimer = setTimeout(() => socket.connected && this.join(), JOIN_RETRY_MS);
      }
      this.joining = false;
      if (this.again) {
        this.again = false;
        this.join();
      }
    });
  };

  /** one unit's events, in seq order */
  private readonly onEvents = (events: ConversationEventDTO[]): void => {
    if (!Array.isArray(events)) return;
    const first = events[0];
    if (first?.conversationId !== this.options.conversationId) return;
    const state = this.options.store.getState();
    if (first.seq > state.lastSeq + 1) this.stats.early++;
    this.afterApply(state.applyEvents(events));
  };

  /** what a live run waits for: ephemeral, like the streamed text */
  private readonly onStatus = (status: { conversationId: string; runId: string; text: string | null }): void => {
    this.options.store.getState().setRunStatus(status);
  };

  private readonly onDelta = (delta: RunDelta): void => {
    this.options.store.getState().appendDelta(delta);
  };

  private readonly onDatabaseStatus = (status: { reachable: boolean }): void => {
    if (typeof status?.reachable !== "boolean") return;
    this.databaseReachable = status.reachable;
    if (this.joined) this.reportLive();
  };

  private reportLive(): void {
    this.options.onConnection?.(this.databaseReachable ? "live" : "noDatabase");
  }

  private readonly onDisconnect = (): void => {
    this.joined = false;
    this.databaseReachable = true;
    this.options.onConnection?.("offline");
    // the join on reconnect replays whatever is missing
    clearTimeout(this.gapTimer);
    this.gapTimer = undefined;
  };

  /**
   * A gap opens a short wait for the missing events; a closed gap cancels it. When the
   * wait ends with the gap still open but progress made meanwhile, the remaining gap is
   * younger than the wait: it gets a wait of its own.
   */
  private afterApply(gap: boolean): void {
    if (!gap) {
      clearTimeout(this.gapTimer);
      this.gapTimer = undefined;
      return;
    }
    if (this.gapTimer) return;
    const armedAt = this.options.store.getState().lastSeq;
    this.gapTimer = setTimeout(() => {
      this.gapTimer = undefined;
      const state = this.options.store.getState();
      if (this.stopped || Object.keys(state.pending).length === 0) return;
      if (state.lastSeq > armedAt) return this.afterApply(true);
      this.stats.gapReplays++;
      this.join();
    }, this.options.gapWaitMs ?? GAP_WAIT_MS);
  }
}
