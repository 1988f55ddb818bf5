import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { ConversationEventDTO, JoinAck } from "@/server/protocol/events.ts";
import { createConversationStore, type ConversationStoreApi } from "../stores/conversation-store.ts";
import { ConversationSync, GAP_WAIT_MS, type SyncSocket } from "./conversation-sync.ts";
import { emptySnapshot } from "@/server/testing/empty-snapshot.ts";

const conversationId = "c1";

function event(seq: number): ConversationEventDTO {
  return {
    v: 1,
    conversationId,
    seq,
    type: "plan-updated",
    payload: { planId: "p1", status: "running", endedAt: null },
    createdAt: "",
  };
}

/** A socket whose server side the test plays: it records joins and answers them on demand. */
class FakeSocket {
  connected = true;
  readonly joins: { afterSeq: number; ack: (ack: JoinAck) => void }[] = [];
  private readonly listeners = new Map<string, Set<(...args: unknown[]) => void>>();
  on(name: string, listener: (...args: unknown[]) => void) {
    if (!this.listeners.has(name)) this.listeners.set(name, new Set());
    this.listeners.get(name)!.add(listener);
    return this;
  }
  off(name: string, listener: (...args: unknown[]) => void) {
    this.listeners.get(name)?.delete(listener);
    return this;
  }
  emit(name: string, request: { afterSeq: number }, ack?: (ack: JoinAck) => void) {
    if (name === "conversation-join" && ack) this.joins.push({ afterSeq: request.afterSeq, ack });
    return this;
  }
  /** the server sends an event */
  receive(name: string, ...args: unknown[]) {
    for (const listener of this.listeners.get(name) ?? []) listener(...args);
  }
  /** the server answers the oldest unanswered join with the stored events after its seq */
  answerJoin(stored: ConversationEventDTO[]) {
    const join = this.joins.shift()!;
    join.ack({ ok: true, events: stored.filter((e) => e.seq > join.afterSeq), lastSeq: stored.at(-1)?.seq ?? 0 });
  }
}

describe("conversation sync: gap buffer", () => {
  let socket: FakeSocket;
  let store: ConversationStoreApi;
  let sync: ConversationSync;

  beforeEach(() => {
    vi.useFakeTimers();
    socket = new FakeSocket();
    store = createConversationStore();
    store.getState().load(emptySnapshot(conversationId));
    sync = new ConversationSync({
      socket: socket as unknown as SyncSocket,
      conversationId,
      store,
      loadSnapshot: () => Promise.reject(new Error("not used")),
    });
    sync.start();
    socket.answerJoin([]); // the join on start
  });

  afterEach(() => {
    sync.stop();
    vi.useRealTimers();
  });

  it("an early event waits for the one before it: no replay when it arrives within the wait", () => {
    socket.receive("conversation-events", [event(2)]);
    expect(store.getState().lastSeq).toBe(0);
    vi.advanceTimersByTime(GAP_WAIT_MS - 1);
    socket.receive("conversation-events", [event(1)]);
    expect(store.getState().lastSeq).toBe(2);
    vi.advanceTimersByTime(GAP_WAIT_MS * 3);
    expect(socket.joins).toEqual([]);
    expect(sync.stats).toEqual({ early: 1, joins: 1, gapReplays: 0 });
  });

  it("a gap still open after the wait is replayed from the server, once", () => {
    socket.receive("conversation-events", [event(1)]);
    socket.receive("conversation-events", [event(3)]);
    socket.receive("conversation-events", [event(4)]);
    vi.advanceTimersByTime(GAP_WAIT_MS);
    expect(socket.joins.map((j) => j.afterSeq)).toEqual([1]);
    socket.answerJoin([event(1), event(2), event(3), event(4)]);
    expect(store.getState().lastSeq).toBe(4);
    expect(store.getState().pending).toEqual({});
    vi.advanceTimersByTime(GAP_WAIT_MS * 3);
    expect(socket.joins).toEqual([]);
    expect(sync.stats).toEqual({ early: 2, joins: 2, gapReplays: 1 });
  });

  it("progress during the wait gives the remaining gap a wait of its own", () => {
    socket.receive("conversation-events", [event(2)]);
    vi.advanceTimersByTime(GAP_WAIT_MS - 100);
    socket.receive("conversation-events", [event(4)]);
    socket.receive("conversation-events", [event(1)]); // 1, 2 applied; 4 waits for 3
    expect(store.getState().lastSeq).toBe(2);
    vi.advanceTimersByTime(100);
    expect(socket.joins).toEqual([]);
    socket.receive("conversation-events", [event(3)]);
    vi.advanceTimersByTime(GAP_WAIT_MS * 3);
    expect(store.getState().lastSeq).toBe(4);
    expect(sync.stats.gapReplays).toBe(0);
  });

  it("replays after a real disconnect, on reconnect, and not for the gap the disconnect cut", () => {
    socket.receive("conversation-events", [event(1)]);
    socket.receive("conversation-events", [event(3)]);
    socket.connected = false;
    socket.receive("disconnect");
    vi.advanceTimersByTime(GAP_WAIT_MS * 3);
    expect(socket.joins).toEqual([]);
    socket.connected = true;
    socket.receive("connect");
    expect(socket.joins.map((j) => j.afterSeq)).toEqual([1]);
    socket.answerJoin([event(1), event(2), event(3)]);
    expect(store.getState().lastSeq).toBe(3);
    expect(sync.stats).toEqual({ early: 1, joins: 2, gapReplays: 0 });
  });

  it("stops listening and cancels a pending wait when stopped", () => {
    socket.receive("conversation-events", [event(2)]);
    sync.stop();
    vi.advanceTimersByTime(GAP_WAIT_MS * 3);
    socket.receive("conversation-events", [event(1)]);
    expect(socket.joins).toEqual([]);
    expect(store.getState().lastSeq).toBe(0);
  });
});

describe("conversation sync: the web node's database", () => {
  function started() {
    const socket = new FakeSocket();
    const store = createConversationStore();
    store.getState().load(emptySnapshot(conversationId));
    const states: string[] = [];
    const sync = new ConversationSync({
      socket: socket as unknown as SyncSocket,
      conversationId,
      store,
      onConnection: (state) => states.push(state),
      loadSnapshot: () => Promise.reject(new Error("not used")),
    });
    sync.start();
    return { socket, states, sync };
  }

  it("shows a live socket whose node cannot reach the database as noDatabase, and live again when it can", () => {
    const { socket, states, sync } = started();
    socket.answerJoin([]);
    socket.receive("database-status", { reachable: false });
    socket.receive("database-status", { reachable: true });
    expect(states).toEqual(["live", "noDatabase", "live"]);
    sync.stop();
  });

  it("a node that says so on connecting is noDatabase once joined; a reconnect forgets it until told again", () => {
    const { socket, states, sync } = started();
    socket.receive("database-status", { reachable: false });
    socket.answerJoin([]);
    socket.receive("disconnect");
    socket.receive("connect");
    socket.answerJoin([]);
    socket.receive("database-status", { reachable: "no" });
    expect(states).toEqual(["noDatabase", "offline", "live"]);
    sync.stop();
  });
});
