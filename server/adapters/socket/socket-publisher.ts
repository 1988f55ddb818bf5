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
import { log } from "../../observability/log.ts";

/** one message to the other processes carries at most this many UTF-16 units of a run's streamed text (a NOTIFY holds 8,000 bytes) */
export const DELTA_CHUNK = 1_000;
/**
 * Longest a process holds an event for its predecessor from another process (browsers
 * wait longer, GAP_WAIT_MS, before they replay). Only a predecessor that never comes
 * costs it. Two processes on a loaded 2-core machine (live-events.int.test.ts): 6 of
 * 5,400 arrivals early with 1 s, about 2 % with 250 ms.
 */
export const HOLD_MS = 1000;
/** where a commit notice's seqs go (the statement puts them there: commitNotice) */
const SEQS_PLACEHOLDER = "baton:seqs";
/** the rooms of conversations are named `conversationRoom(id)`: this prefix and the id */
const CONVERSATION_ROOM_PREFIX = conversationRoom("");
/** the conversation a room is of, or null for another kind of room */
const conversationOfRoom = (room: string) =>
  room.startsWith(CONVERSATION_ROOM_PREFIX) ? room.slice(CONVERSATION_ROOM_PREFIX.length) : null;
/** a read of another process's events is tried this often, READ_RETRY_MS × attempt apart */
const READ_ATTEMPTS = 3;
const READ_RETRY_MS = 100;
/** most events one conversation replays to this process's sockets after the bus came back */
export const REPLAY_LIMIT = 1_000;

type AnyServer = Server<ClientToServerEvents, ServerToClientEvents> | Server;

/** A unit's committed events, seqs `first` to `last`, from the event log. */
export type EventLogReader = (conversationId: string, first: number, last: number) => Promise<ConversationEventDTO[]>;

/** What another process's message says it committed: a conversation's seqs `first` to `last`. */
export interface CommittedSeqs {
  conversationId: string;
  first: number;
  last: number;
}

/** What processes tell each other about conversations: a unit's committed seqs, a run's streamed text or status. */
export type ClusterMessage =
  | { from: string; kind: "seqs"; seqs: CommittedSeqs }
  | { from: string; kind: "delta"; delta: RunDelta }
  | { from: string; kind: "status"; status: { conversationId: string; runId: string; text: string | null } };

/** The channel between processes (db/event-bus.ts on PostgreSQL). */
export interface ClusterBus {
  /** this process's id on the bus: its own messages come back to it and are ignored */
  readonly id: string;
  /** the NOTIFY channel a unit's statement announces its seqs on (commitNotice) */
  readonly channel: string;
  /** resolves once the message is out (a failure is logged, never thrown) */
  send(message: ClusterMessage): Promise<void>;
  /** `lost`: the bus stopped listening; `resubscribed`: it listens again and may have missed messages meanwhile */
  subscribe(handlers: { message(message: ClusterMessage): void; lost(): void; resubscribed(): void }): void;
}

export interface SocketPublisher extends EventPublisher {
  /**
   * Call once with several processes: send to the other processes over `bus`, and learn
   * the seqs they publish (their events are read with `readEvents` where sockets watch).
   * When the bus comes back after a drop, what was committed meanwhile is read from the
   * event log and sent to the sockets here.
   */
  watchCluster(readEvents: EventLogReader, bus: ClusterBus): void;
}

export function createSocketPublisher(io: AnyServer, options: { holdMs?: number } = {}): SocketPublisher {
  const queue = new PerKeyQueue();
  const order = new SeqWatermarks();
  const holdMs = options.holdMs ?? HOLD_MS;
  let bus: ClusterBus | null = null;
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
  /** whether any of this process's sockets is in the room (the adapter's rooms are this process's: public `rooms`) */
  const watchedHere = (room: string) => (io.of("/").adapter.rooms.get(room)?.size ?? 0) > 0;
  /** the conversations a socket of this process watches */
  const watchedConversations = () => {
    const ids: string[] = [];
    for (const [room, sockets] of io.of("/").adapter.rooms) {
      const id = conversationOfRoom(room);
      if (id !== null && sockets.size > 0) ids.push(id);
    }
    return ids;
  };
  /** a run's streamed text to the other processes, in pieces a NOTIFY can carry */
  const deltaToOthers = async (delta: RunDelta) => {
    if (!bus) return;
    const pieces = splitText(delta.text, DELTA_CHUNK);
    for (const [index, text] of pieces.entries()) {
      const piece: RunDelta =
        index === 0 && delta.reset ? { ...delta, text } : { conversationId: delta.conversationId, runId: delta.runId, text };
      await bus.send({ from: bus.id, kind: "delta", delta: piece });
    }
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
        if (bus && !options?.othersTold) {
          const seqs: CommittedSeqs = { conversationId: last.conversationId, first: first.seq, last: last.seq };
          await bus.send({ from: bus.id, kind: "seqs", seqs });
        }
      });
    },
    runStatus(conversationId, runId, text) {
      local(conversationRoom(conversationId), "run-status", { conversationId, runId, text });
      if (bus) void bus.send({ from: bus.id, kind: "status", status: { conversationId, runId, text } });
    },
    runDelta(conversationId, runId, text, options) {
      // through the same queue: streamed chunks must not overtake each other, nor the events before them
      const delta: RunDelta = options?.reset ? { conversationId, runId, text, reset: true } : { conversationId, runId, text };
      queue.run(conversationId, async () => {
        local(conversationRoom(conversationId), "run-delta", delta);
        await deltaToOthers(delta);
      });
    },
    commitNotice() {
      if (!bus) return null;
      // the statement puts {"conversationId", "first", "last"} between the two
      const [before, after] = JSON.stringify({ from: bus.id, kind: "seqs", seqs: SEQS_PLACEHOLDER }).split(
        JSON.stringify(SEQS_PLACEHOLDER),
      );
      return { channel: bus.channel, before, after };
    },
    watchCluster(readEvents, clusterBus) {
      bus = clusterBus;
      /** the unit's events where a socket here watches the conversation; a failed read is left to the browsers' replay */
      const eventsFor = async ({ conversationId, first, last }: CommittedSeqs) => {
        if (!watchedHere(conversationRoom(conversationId))) return null;
        // a connection that just dropped fails one read; the pool's next connection answers
        for (let attempt = 1; ; attempt++) {
          try {
            return await readEvents(conversationId, first, last);
          } catch (error) {
            if (attempt >= READ_ATTEMPTS) {
              log.warn({ err: error, conversationId, first, last }, "could not read another process's events; browsers will replay them");
              return null;
            }
            await new Promise((resolve) => setTimeout(resolve, READ_RETRY_MS * attempt));
          }
        }
      };
      // Another process's events go to this process's sockets after their predecessor (this
      // process's own, or another's). Each unit is read as its message arrives, and reads
      // end in any order: a sender's units are written in the order it sent them (one queue
      // per sender and conversation), and each waits for its predecessor's seq, which may
      // come from anyone. Senders do not queue behind each other: one's unit may wait for
      // another's, which arrives later.
      const arrivals = new PerKeyQueue();
      /** per watched conversation, the last seq that had gone out here when the bus dropped */
      let sentBeforeDrop = new Map<string, number>();
      /**
       * The bus is back: what other processes committed meanwhile was announced to nobody.
       * Each conversation watched here is read from where it stood when the bus dropped
       * (seq order, from the event log) and written to its sockets.
       */
      const replayMissed = async () => {
        const from = sentBeforeDrop;
        sentBeforeDrop = new Map();
        for (const conversationId of watchedConversations()) {
          const after = from.get(conversationId) ?? order.highestOf(conversationId);
          if (after === undefined) continue;
          arrivals.run(`replay ${conversationId}`, async () => {
            const events = await readEvents(conversationId, after + 1, after + REPLAY_LIMIT);
            const last = events.at(-1);
            if (!last) return;
            await order.waitFor(conversationId, after, holdMs);
            deliver(conversationId, last.seq, events);
          });
        }
      };
      clusterBus.subscribe({
        lost: () => {
          for (const conversationId of watchedConversations()) {
            const seq = order.highestOf(conversationId);
            if (seq !== undefined && !sentBeforeDrop.has(conversationId)) sentBeforeDrop.set(conversationId, seq);
          }
        },
        resubscribed: () => void replayMissed(),
        message: (message) => {
          // the bus hears this process's own messages too: this process wrote them already
          if (message.from === clusterBus.id) return;
          if (message.kind === "delta") {
            if (typeof message.delta?.conversationId === "string")
              local(conversationRoom(message.delta.conversationId), "run-delta", message.delta);
            return;
          }
          if (message.kind === "status") {
            const status = message.status;
            if (typeof status?.conversationId === "string") local(conversationRoom(status.conversationId), "run-status", status);
            return;
          }
          const seqs = message.kind === "seqs" ? committedSeqs(message.seqs) : null;
          if (!seqs) return;
          const read = eventsFor(seqs);
          arrivals.run(`${message.from} ${seqs.conversationId}`, async () => {
            const events = await read;
            await order.waitFor(seqs.conversationId, seqs.first - 1, holdMs);
            deliver(seqs.conversationId, seqs.last, events);
          });
        },
      });
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

  /** the highest seq that has gone out here (undefined: nothing known) */
  highestOf(conversationId: string): number | undefined {
    return this.highest.get(conversationId)?.seq;
  }

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

/** Splits `text` into pieces of at most `size` UTF-16 units, never inside a surrogate pair. */
export function splitText(text: string, size: number): string[] {
  if (text.length <= size) return [text];
  const pieces: string[] = [];
  let at = 0;
  while (at < text.length) {
    let end = Math.min(text.length, at + size);
    // a high surrogate at the cut belongs with the low one after it
    if (end < text.length && end > at + 1 && /[\uD800-\uDBFF]/.test(text[end - 1])) end -= 1;
    pieces.push(text.slice(at, end));
    at = end;
  }
  return pieces;
}

/** For processes without clients (tests, benchmarks, headless workers). */
export const silentPublisher: EventPublisher = { publish() {}, runDelta() {} };
