/**
 * Publishes committed conversation events to Socket.IO rooms, in `seq` order per
 * conversation.
 *
 * This process's own sockets get a unit's events at once, as one packet per socket
 * ("conversation-events"), written synchronously in the order the executor publishes (a
 * conversation's units run one at a time in a process, and seq is handed out under the
 * conversation's lock).
 *
 * Other processes (the PostgreSQL adapter, once `watchCluster` is on) get ONE cluster
 * message per unit, not one per event (a step's six or seven events sent one at a time
 * queued up behind each other faster than steps ended: the fan-out to another process's
 * browsers took over 100 ms at the median). The message names the unit's seqs, not its
 * events, and the unit's own statement sends it (`commitNotice`, a NOTIFY delivered at
 * commit, in commit order): no round trip, no transaction of its own. A process whose
 * sockets watch the conversation reads the events from the event log; one whose sockets
 * do not (most processes, for most conversations) reads nothing. Sending the events
 * themselves in a NOTIFY of its own after the commit (3–4 kB a step; a plan's went over
 * the 8,000 bytes a NOTIFY may carry, and through the adapter's attachments table) cost
 * the sending process about a millisecond of CPU a step and every other process a parse
 * of each unit. The receiving process writes each unit's events to its own sockets as if
 * they were its own. (A unit written without the notice, before the cluster was watched,
 * is announced the old way: one message after its commit, a conversation's one at a time.)
 *
 * Across processes: seq n may be committed by another process just before this one
 * commits n+1. Once `watchCluster` is on, every event goes to this process's sockets
 * after its predecessor has (its own events and other processes' alike): an event waits
 * for seq-1 at most HOLD_MS, so a process that died between commit and publish does not
 * stall the conversation. Browsers wait briefly for what is still missing, then replay by seq:
 * delivery here is best effort by design; storage is what is durable.
 */
import { setImmediate as nextTurn } from "node:timers/promises";
import type { Server } from "socket.io";
import type { EventPublisher } from "../../executor/ports.ts";
import type { ClientToServerEvents, ConversationEventDTO, RunDelta, ServerToClientEvents } from "../../protocol/events.ts";
import { activityRoom, conversationRoom } from "../../protocol/rooms.ts";
import { log } from "../../ops/log.ts";

/** socket.io-parser's PacketType.EVENT (what `emit` sends) */
const EVENT_PACKET = 2;
/** socket.io-adapter's cluster MessageType.BROADCAST */
const CLUSTER_BROADCAST = 3;
/** what one cluster message carries: the seqs of a unit's events, or a run's streamed text */
const CLUSTER_SEQS = "baton:conversation-seqs";
const CLUSTER_DELTA = "baton:run-delta";
/** where a commit notice's seqs go (never a conversation's id: those are UUIDs) */
const SEQS_PLACEHOLDER = "baton:seqs";
/** the events themselves, as a process of the previous version sends them (read during a rolling upgrade) */
const CLUSTER_EVENTS = "baton:conversation-events";
/**
 * Longest a process holds an event for its predecessor from another process (browsers
 * wait longer, GAP_WAIT_MS, before they replay). Only a predecessor that never comes
 * costs it. Two processes on a loaded 2-core machine (live-events.int.test.ts): 6 of
 * 5,400 arrivals early with 1 s, about 2 % with 250 ms.
 */
export const HOLD_MS = 1000;

type AnyServer = Server<ClientToServerEvents, ServerToClientEvents> | Server;

/** A unit's committed events, seqs `first` to `last`, from the event log. */
export type EventLogReader = (conversationId: string, first: number, last: number) => Promise<ConversationEventDTO[]>;

/** What another process's message says it committed: a conversation's seqs `first` to `last`. */
interface CommittedSeqs {
  conversationId: string;
  first: number;
  last: number;
}

export interface SocketPublisher extends EventPublisher {
  /**
   * Call once the cluster adapter is attached: send to the other processes, and learn the
   * seqs they publish (their events are read with `readEvents` where sockets watch).
   * `notifyChannel`: the adapter's channel for the default namespace, on which units'
   * statements announce their seqs themselves (commitNotice).
   */
  watchCluster(readEvents: EventLogReader, options?: { notifyChannel?: string }): void;
}

export function createSocketPublisher(io: AnyServer, options: { holdMs?: number } = {}): SocketPublisher {
  const queue = new PerKeyQueue();
  const order = new SeqWatermarks();
  const holdMs = options.holdMs ?? HOLD_MS;
  let clustered = false;
  let notifyChannel: string | null = null;
  const local = (room: string, name: string, data: unknown, except?: string) => {
    const target = except === undefined ? io.local.to(room) : io.local.to(room).except(except);
    (target.emit as (name: string, data: unknown) => boolean)(name, data);
  };
  /**
   * Writes a unit's events to this process's sockets as one packet (none: no socket here
   * watches the conversation), then the sidebar's activity to the sockets that do not
   * watch it: one that does has just been sent the events themselves, and its sidebar
   * counts nothing for the conversation open in it (one write a unit less per watcher).
   */
  const deliver = (conversationId: string, lastSeq: number, events: ConversationEventDTO[] | null) => {
    const room = conversationRoom(conversationId);
    try {
      if (events && events.length > 0) local(room, "conversation-events", events);
    } finally {
      order.saw(conversationId, lastSeq);
    }
    local(activityRoom(conversationId), "activity", { conversationId, seq: lastSeq }, room);
  };
  /** whether any of this process's sockets is in the room (the adapter's rooms are this process's) */
  const watchedHere = (room: string) => (io.of("/").adapter.rooms?.get(room)?.size ?? 0) > 0;
  /**
   * One message to the other processes and none to this one's sockets (the room is both
   * the target and excluded here; the receiver unpacks it, see watchCluster). Resolves
   * once it is out, so a conversation's messages leave in order.
   */
  const toOtherProcesses = async (conversationId: string, name: string, data: unknown) => {
    const room = conversationRoom(conversationId);
    await (io
      .of("/")
      .adapter.broadcast(
        { type: EVENT_PACKET, data: [name, data] },
        { rooms: new Set([room]), except: new Set([room]), flags: {} },
      ) as unknown as Promise<void> | void);
  };
  return {
    publish(events: ConversationEventDTO[], options) {
      const first = events[0];
      const last = events.at(-1);
      if (!first || !last) return;
      // this unit goes out a turn later (below): another process's units after it wait for it
      order.startAt(first.conversationId, first.seq - 1);
      queue.run(last.conversationId, async () => {
        // The sockets are written a turn later, once the work the commit released has gone
        // out: the model calls of the runs it claimed start in this turn's microtasks, and
        // a write to every watching socket (about 0.3 ms for one, milliseconds for a
        // hundred) must not stand between a step's end and its dependent's call. In the
        // queue, so a run's streamed text still follows the events that announced the run.
        await nextTurn();
        await order.waitFor(first.conversationId, first.seq - 1, holdMs);
        deliver(last.conversationId, last.seq, events);
        if (clustered && !options?.othersTold) {
          const seqs: CommittedSeqs = { conversationId: last.conversationId, first: first.seq, last: last.seq };
          await toOtherProcesses(last.conversationId, CLUSTER_SEQS, seqs);
        }
      });
    },
    runStatus(conversationId, runId, text) {
      io.to(conversationRoom(conversationId)).emit("run-status", { conversationId, runId, text });
    },
    runDelta(conversationId, runId, text, options) {
      // through the same queue: streamed chunks must not overtake each other, nor the events before them
      const delta: RunDelta = options?.reset ? { conversationId, runId, text, reset: true } : { conversationId, runId, text };
      queue.run(conversationId, async () => {
        local(conversationRoom(conversationId), "run-delta", delta);
        if (clustered) await toOtherProcesses(conversationId, CLUSTER_DELTA, delta);
      });
    },
    commitNotice(conversationId) {
      const uid = (io.of("/").adapter as { uid?: string }).uid;
      if (!clustered || !notifyChannel || !uid) return null;
      // the message the adapter itself would send for toOtherProcesses, with the seqs left out
      const room = conversationRoom(conversationId);
      const message = JSON.stringify({
        uid,
        nsp: "/",
        type: CLUSTER_BROADCAST,
        data: {
          packet: { type: EVENT_PACKET, nsp: "/", data: [CLUSTER_SEQS, SEQS_PLACEHOLDER] },
          opts: { rooms: [room], except: [room], flags: {} },
        },
      });
      const [before, after] = message.split(JSON.stringify(SEQS_PLACEHOLDER));
      return { channel: notifyChannel, before, after };
    },
    watchCluster(readEvents, options) {
      type ClusterMessage = { uid?: string; type?: number; data?: { packet?: { data?: unknown[] } } };
      const adapter = io.of("/").adapter as unknown as { uid?: string; onMessage?: (message: ClusterMessage, offset?: string) => unknown };
      const onMessage = adapter.onMessage?.bind(adapter);
      if (!onMessage) return;
      clustered = true;
      notifyChannel = options?.notifyChannel ?? null;
      /** the unit's events where a socket here watches the conversation; a failed read is left to the browsers' replay */
      const eventsFor = async ({ conversationId, first, last }: CommittedSeqs) => {
        if (!watchedHere(conversationRoom(conversationId))) return null;
        return readEvents(conversationId, first, last).catch((error: unknown) => {
          log.warn({ err: error, conversationId, first, last }, "could not read another process's events; browsers will replay them");
          return null;
        });
      };
      // Another process's events go to this process's sockets after their predecessor (this
      // process's own, or another's). Each unit is read as its message arrives, and reads
      // end in any order: a sender's units are written in the order it sent them (one queue
      // per sender and conversation), and each waits for its predecessor's seq, which may
      // come from anyone. Senders do not queue behind each other: one's unit may wait for
      // another's, which arrives later.
      const arrivals = new PerKeyQueue();
      adapter.onMessage = (message, offset) => {
        // the adapter hears its own messages too (and drops them): this process wrote them already
        if (message.uid !== undefined && message.uid === adapter.uid) return onMessage(message, offset);
        const [name, data] = message.type === CLUSTER_BROADCAST ? (message.data?.packet?.data ?? []) : [];
        if (name === CLUSTER_DELTA) {
          const delta = data as RunDelta;
          if (typeof delta?.conversationId === "string") local(conversationRoom(delta.conversationId), "run-delta", delta);
          return;
        }
        const seqs = name === CLUSTER_SEQS ? committedSeqs(data) : name === CLUSTER_EVENTS ? seqsOfEvents(data) : null;
        if (!seqs) return onMessage(message, offset);
        const read = name === CLUSTER_EVENTS ? Promise.resolve(data as ConversationEventDTO[]) : eventsFor(seqs);
        arrivals.run(`${message.uid ?? ""} ${seqs.conversationId}`, async () => {
          const events = await read;
          await order.waitFor(seqs.conversationId, seqs.first - 1, holdMs);
          deliver(seqs.conversationId, seqs.last, events);
        });
      };
    },
  };
}

/**
 * The highest seq that has gone out in this process, per conversation, and waiters for
 * a seq to go out. A conversation not seen for a while is forgotten (then nothing waits).
 */
class SeqWatermarks {
  private readonly highest = new Map<string, { seq: number; at: number }>();
  private readonly waiters = new Map<string, Set<{ seq: number; wake(): void }>>();
  private sweptAt = Date.now();

  saw(conversationId: string, seq: number): void {
    const now = Date.now();
    const known = this.highest.get(conversationId);
    if (!known || seq > known.seq) this.highest.set(conversationId, { seq, at: now });
    for (const waiter of this.waiters.get(conversationId) ?? []) if (seq >= waiter.seq) waiter.wake();
    if (now - this.sweptAt > 60_000) {
      this.sweptAt = now;
      for (const [id, entry] of this.highest) if (now - entry.at > 600_000) this.highest.delete(id);
    }
  }

  /**
   * For a conversation nothing is known of yet: what went out before `seq` is not waited
   * for. A unit published here takes its place in the order at once (its events go out a
   * turn later); without this, another process's later unit could go first.
   */
  startAt(conversationId: string, seq: number): void {
    if (!this.highest.has(conversationId)) this.highest.set(conversationId, { seq, at: Date.now() });
  }

  /** Resolves once `seq` has gone out, at once if nothing is known, or after `timeoutMs`. */
  waitFor(conversationId: string, seq: number, timeoutMs: number): Promise<void> {
    const known = this.highest.get(conversationId);
    if (!known || known.seq >= seq || timeoutMs <= 0) return Promise.resolve();
    return new Promise((resolve) => {
      const set = this.waiters.get(conversationId) ?? new Set();
      this.waiters.set(conversationId, set);
      const waiter = {
        seq,
        wake: () => {
          clearTimeout(timer);
          set.delete(waiter);
          if (set.size === 0) this.waiters.delete(conversationId);
          resolve();
        },
      };
      const timer = setTimeout(waiter.wake, timeoutMs);
      set.add(waiter);
    });
  }
}

/** Runs tasks one after another per key; a failed task is logged and does not stop the queue. */
class PerKeyQueue {
  private readonly tails = new Map<string, Promise<void>>();

  run(key: string, task: () => Promise<void>): void {
    const tail = (this.tails.get(key) ?? Promise.resolve())
      .then(task)
      .catch((error: unknown) => log.error({ err: error, conversationId: key }, "publishing live events failed"));
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
  }
}

/** A seqs message as another process sent it, or null when it is not one. */
function committedSeqs(data: unknown): CommittedSeqs | null {
  const seqs = data as Partial<CommittedSeqs> | null;
  if (typeof seqs?.conversationId !== "string" || !Number.isInteger(seqs.first) || !Number.isInteger(seqs.last)) return null;
  if (seqs.first! > seqs.last!) return null;
  return { conversationId: seqs.conversationId, first: seqs.first!, last: seqs.last! };
}

/** The seqs of the events a process of the previous version sent whole. */
function seqsOfEvents(data: unknown): CommittedSeqs | null {
  if (!Array.isArray(data)) return null;
  const events = data as ConversationEventDTO[];
  const [first, last] = [events[0], events.at(-1)];
  if (typeof first?.conversationId !== "string" || !Number.isInteger(first.seq) || !Number.isInteger(last?.seq)) return null;
  return { conversationId: first.conversationId, first: first.seq, last: last!.seq };
}

/** For processes without clients (tests, benchmarks, headless workers). */
export const silentPublisher: EventPublisher = { publish() {}, runDelta() {} };
