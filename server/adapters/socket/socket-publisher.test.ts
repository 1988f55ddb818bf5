import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { expect, it, vi } from "vitest";
import { Server } from "socket.io";
import { io as connect, type Socket as ClientSocket } from "socket.io-client";
import type { ConversationEventDTO } from "../../protocol/events.ts";
import { activityRoom, conversationRoom } from "../../protocol/rooms.ts";
import { createSocketPublisher, splitText, type ClusterBus, type ClusterMessage } from "./socket-publisher.ts";

const event = (seq: number, conversationId = "c1") =>
  ({
    v: 1,
    conversationId,
    seq,
    type: "plan-updated",
    payload: { planId: "p", status: "running", endedAt: null },
    createdAt: "",
  }) as ConversationEventDTO;

/**
 * An io and a cluster bus: `io.local` writes to this process's sockets at once;
 * `bus.send` is a message to the other processes, which resolves after a random delay
 * (the NOTIFY) and is recorded in `sent`; `fromOtherProcess` is how another process's
 * message arrives. `delivered` is what local sockets received, in order.
 */
function fakeCluster(options: { watched?: boolean; failReads?: boolean } = {}) {
  const delivered: string[] = [];
  /** the seqs the sidebar's activity announced, in order */
  const activity: string[] = [];
  /** the event log the other processes committed to; reads take a random while, as a query does */
  const log = new Map<number, ConversationEventDTO>();
  const reads: string[] = [];
  const readEvents = async (conversationId: string, first: number, last: number) => {
    reads.push(`${conversationId}:${first}-${last}`);
    await new Promise((resolve) => setTimeout(resolve, Math.random() * 10));
    if (options.failReads) throw new Error("the database is away");
    return [...log.values()].filter((e) => e.conversationId === conversationId && e.seq >= first && e.seq <= last);
  };
  /** how many events each local packet carried */
  const packets: number[] = [];
  const deltas: string[] = [];
  const sent: ClusterMessage[] = [];
  type Payload = { conversationId: string; seq?: number; text?: string };
  const write = (name: string, payload: Payload | Payload[]) => {
    if (name === "conversation-events") {
      packets.push((payload as Payload[]).length);
      for (const event of payload as Payload[]) delivered.push(`${event.conversationId}:${event.seq}`);
    }
    if (name === "run-delta") deltas.push((payload as Payload).text!);
    if (name === "activity") activity.push(`${(payload as Payload).conversationId}:${(payload as Payload).seq}`);
  };
  // this process's sockets, by room: one browser watches c1 unless told otherwise
  const rooms = new Map(options.watched === false ? [] : [[conversationRoom("c1"), new Set(["socket-1"])]]);
  let handlers: Parameters<ClusterBus["subscribe"]>[0] | null = null;
  const bus: ClusterBus = {
    id: "this-process",
    channel: "baton_events",
    async send(message) {
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 5));
      sent.push(message);
    },
    subscribe(given) {
      handlers = given;
    },
  };
  const io = {
    of: () => ({ adapter: { rooms } }),
    local: {
      // rooms are not modelled here: every local write reaches "the" socket (see the real server's test below)
      to: () => {
        const target = {
          emit: (name: string, payload: { conversationId: string; seq?: number }) => write(name, payload),
          except: () => target,
        };
        return target;
      },
    },
  } as unknown as Server;
  const fromOtherProcess = (message: ClusterMessage) => handlers!.message(message);
  /** another process committed these events and tells the cluster their seqs */
  const committedElsewhere = (from: string, ...events: ConversationEventDTO[]) => {
    for (const e of events) log.set(e.seq, e);
    fromOtherProcess({
      from,
      kind: "seqs",
      seqs: { conversationId: events[0].conversationId, first: events[0].seq, last: events.at(-1)!.seq },
    });
  };
  /** events another process committed while the bus was down: nobody announces them */
  const committedUnheard = (...events: ConversationEventDTO[]) => {
    for (const e of events) log.set(e.seq, e);
  };
  const busDropped = () => handlers!.lost();
  const busBack = () => handlers!.resubscribed();
  return {
    io,
    bus,
    delivered,
    activity,
    packets,
    deltas,
    sent,
    reads,
    readEvents,
    fromOtherProcess,
    committedElsewhere,
    committedUnheard,
    busDropped,
    busBack,
  };
}

const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

it("writes a conversation's events to this process's sockets in seq order, one packet a unit, and nothing to other processes alone", async () => {
  const { io, delivered, packets, sent } = fakeCluster();
  const publisher = createSocketPublisher(io);
  for (let seq = 1; seq <= 30; seq += 3) publisher.publish([event(seq), event(seq + 1), event(seq + 2)]);
  publisher.publish([event(1, "c2")]);
  await settle(50);
  expect(delivered.filter((d) => d.startsWith("c1:"))).toEqual(Array.from({ length: 30 }, (_, i) => `c1:${i + 1}`));
  expect(delivered).toContain("c2:1");
  // a socket gets each unit's events in one write, not one write per event
  expect([...packets].sort()).toEqual([1, ...Array.from({ length: 10 }, () => 3)]);
  expect(sent).toEqual([]);
});

it("with other processes, sends each unit's seqs as one message, in order, after the local write", async () => {
  const { io, bus, delivered, sent, readEvents } = fakeCluster();
  const publisher = createSocketPublisher(io);
  publisher.watchCluster(readEvents, bus);
  for (let seq = 1; seq <= 30; seq += 3) publisher.publish([event(seq), event(seq + 1), event(seq + 2)]);
  publisher.runDelta("c1", "r1", "text");
  await settle(400);
  expect(delivered).toEqual(Array.from({ length: 30 }, (_, i) => `c1:${i + 1}`));
  const units = sent.filter((message) => message.kind === "seqs");
  // the seqs, not the events: the other processes read what they need from the log
  expect(units.map((message) => message.kind === "seqs" && message.seqs)).toEqual(
    Array.from({ length: 10 }, (_, i) => ({ conversationId: "c1", first: 3 * i + 1, last: 3 * i + 3 })),
  );
  expect(sent.at(-1)).toEqual({ from: "this-process", kind: "delta", delta: { conversationId: "c1", runId: "r1", text: "text" } });
});

it("reads another process's events from the log and writes them to local sockets, each after its predecessor, own or theirs", async () => {
  const { io, bus, delivered, activity, deltas, readEvents, fromOtherProcess, committedElsewhere } = fakeCluster();
  const publisher = createSocketPublisher(io, { holdMs: 2_000 });
  publisher.watchCluster(readEvents, bus);
  publisher.publish([event(1)]);
  await settle(50);
  // two other processes committed 2 and 4-5, this one 3: 4-5 arrive first, then 3 is published, then 2 arrives
  committedElsewhere("other-1", event(4), event(5));
  publisher.publish([event(3)]);
  await settle(50);
  expect(delivered).toEqual(["c1:1"]);
  committedElsewhere("other-2", event(2));
  await settle(50);
  expect(delivered).toEqual(["c1:1", "c1:2", "c1:3", "c1:4", "c1:5"]);
  expect(activity).toEqual(["c1:1", "c1:2", "c1:3", "c1:5"]);
  fromOtherProcess({ from: "other-1", kind: "delta", delta: { conversationId: "c1", runId: "r2", text: "streamed" } });
  expect(deltas).toEqual(["streamed"]);
});

it("many units from other processes, read in any order, reach the sockets in seq order", async () => {
  const { io, bus, delivered, packets, reads, readEvents, committedElsewhere } = fakeCluster();
  const publisher = createSocketPublisher(io, { holdMs: 2_000 });
  publisher.watchCluster(readEvents, bus);
  // one process's units, in the order it sent them; their reads end in any order
  for (let seq = 1; seq <= 60; seq += 2) committedElsewhere("other-1", event(seq), event(seq + 1));
  await settle(100);
  expect(delivered).toEqual(Array.from({ length: 60 }, (_, i) => `c1:${i + 1}`));
  expect(packets).toEqual(Array.from({ length: 30 }, () => 2));
  expect(reads).toHaveLength(30);
});

it("reads nothing for a conversation no socket here watches, and holds nothing behind it", async () => {
  const { io, bus, delivered, activity, reads, readEvents, committedElsewhere } = fakeCluster({ watched: false });
  const publisher = createSocketPublisher(io, { holdMs: 2_000 });
  publisher.watchCluster(readEvents, bus);
  publisher.publish([event(1)]);
  committedElsewhere("other-1", event(2), event(3));
  publisher.publish([event(4)]);
  await settle(50);
  expect(reads).toEqual([]);
  // this process's own next unit was not held for seqs 2-3 (the hold is 2 s)
  expect(delivered).toEqual(["c1:1", "c1:4"]);
  expect(activity).toEqual(["c1:1", "c1:3", "c1:4"]);
});

it("a read that keeps failing is retried, then left to the browsers' replay, holding nothing behind it", async () => {
  const { io, bus, delivered, reads, readEvents, committedElsewhere } = fakeCluster({ failReads: true });
  const publisher = createSocketPublisher(io, { holdMs: 2_000 });
  publisher.watchCluster(readEvents, bus);
  publisher.publish([event(1)]);
  committedElsewhere("other-1", event(2));
  publisher.publish([event(3)]);
  // three attempts, 100 and 200 ms apart
  await vi.waitFor(() => expect(delivered).toEqual(["c1:1", "c1:3"]), { timeout: 1_500 });
  expect(reads).toEqual(["c1:2-2", "c1:2-2", "c1:2-2"]);
});

it("does not wait longer than the hold for a predecessor that never comes", async () => {
  const { io, bus, delivered, readEvents } = fakeCluster();
  const publisher = createSocketPublisher(io, { holdMs: 100 });
  publisher.watchCluster(readEvents, bus);
  publisher.publish([event(1)]);
  publisher.publish([event(3)]); // 2 was committed by a process that died before publishing it
  await settle(50);
  expect(delivered).toEqual(["c1:1"]);
  await settle(150);
  expect(delivered).toEqual(["c1:1", "c1:3"]);
});

it("a unit's statement can announce its seqs itself: the notice is the bus's own message, and publishing then sends nothing more", async () => {
  const { io, bus, delivered, sent, readEvents, fromOtherProcess } = fakeCluster();
  const publisher = createSocketPublisher(io);
  expect(publisher.commitNotice?.("c1")).toBeNull(); // nobody else listens yet
  publisher.watchCluster(readEvents, bus);
  const notice = publisher.commitNotice!("c1")!;
  expect(notice.channel).toBe("baton_events");
  // what the database sends: the notice's text around the seqs the events got
  const text = `${notice.before}${JSON.stringify({ conversationId: "c1", first: 1, last: 2 })}${notice.after}`;
  expect(JSON.parse(text)).toEqual({ from: "this-process", kind: "seqs", seqs: { conversationId: "c1", first: 1, last: 2 } });

  publisher.publish([event(1), event(2)], { othersTold: true });
  publisher.publish([event(3)]); // a unit written without the notice is announced after its commit
  await settle(50);
  expect(delivered).toEqual(["c1:1", "c1:2", "c1:3"]);
  expect(sent).toEqual([{ from: "this-process", kind: "seqs", seqs: { conversationId: "c1", first: 3, last: 3 } }]);

  // another process's notice, as its statement sent it, is read and delivered here
  const theirs = JSON.parse(
    `${notice.before}${JSON.stringify({ conversationId: "c1", first: 4, last: 4 })}${notice.after}`,
  ) as ClusterMessage;
  const other = fakeCluster();
  const reading = createSocketPublisher(other.io, { holdMs: 2_000 });
  reading.watchCluster(async () => [event(4)], other.bus);
  other.fromOtherProcess({ ...theirs, from: "other-1" });
  await settle(50);
  expect(other.delivered).toEqual(["c1:4"]);
  // its own notice coming back is not delivered twice
  fromOtherProcess(theirs);
  await settle(20);
  expect(delivered).toEqual(["c1:1", "c1:2", "c1:3"]);
});

it("after the bus drops and comes back, replays what was committed meanwhile from the log, in seq order", async () => {
  const { io, bus, delivered, readEvents, committedElsewhere, committedUnheard, busDropped, busBack } = fakeCluster();
  const publisher = createSocketPublisher(io, { holdMs: 2_000 });
  publisher.watchCluster(readEvents, bus);
  committedElsewhere("other-1", event(1), event(2));
  await settle(50);
  busDropped();
  // another process commits 3-5 while nobody listens; this process publishes 6 of its own
  committedUnheard(event(3), event(4), event(5));
  publisher.publish([event(6)]);
  await settle(50);
  expect(delivered).toEqual(["c1:1", "c1:2"]);
  busBack();
  await settle(100);
  expect(delivered).toEqual(["c1:1", "c1:2", "c1:3", "c1:4", "c1:5", "c1:6"]);
});

it("sends a long streamed text to the other processes in pieces a NOTIFY can carry, never splitting a character", async () => {
  const { io, bus, sent, readEvents } = fakeCluster();
  const publisher = createSocketPublisher(io);
  publisher.watchCluster(readEvents, bus);
  const text = "😀".repeat(1_500);
  publisher.runDelta("c1", "r1", text, { reset: true });
  await settle(100);
  const pieces = sent.flatMap((message) => (message.kind === "delta" ? [message.delta] : []));
  expect(pieces.length).toBeGreaterThan(1);
  expect(pieces.map((delta) => delta.text).join("")).toBe(text);
  expect(pieces.map((delta) => delta.reset ?? false)).toEqual(pieces.map((_, index) => index === 0));
  for (const delta of pieces) expect(JSON.stringify(delta.text)).not.toMatch(/\\ud[89ab]/i);
  expect(splitText("ab😀c", 3)).toEqual(["ab", "😀c"]);
});

it("writes a unit's events a turn after its commit, once the runs it released have started, and a run's text still after them", async () => {
  const { io, delivered, deltas } = fakeCluster();
  const publisher = createSocketPublisher(io);
  const order: string[] = [];
  publisher.publish([event(1), event(2)]);
  publisher.runDelta("c1", "r1", "first words");
  // what the commit released runs in this turn's microtasks: a run confirmed, its model call
  let work = Promise.resolve();
  for (let i = 0; i < 50; i++) work = work.then(() => void order.push(`work ${delivered.length}`));
  await work;
  expect(order.at(-1)).toBe("work 0");
  await settle(10);
  expect(delivered).toEqual(["c1:1", "c1:2"]);
  expect(deltas).toEqual(["first words"]);
});

it("writes the sidebar's activity only to the sockets that do not watch the conversation (a real Socket.IO server)", async () => {
  const http = createServer();
  const io = new Server(http);
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  io.on("connection", (socket) => {
    void socket.join(activityRoom("c1"));
    if (socket.handshake.query.watch === "yes") void socket.join(conversationRoom("c1"));
  });
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const received = { watcher: [] as string[], sidebar: [] as string[] };
  const clients = await Promise.all(
    (["watcher", "sidebar"] as const).map(
      (role) =>
        new Promise<ClientSocket>((resolve) => {
          const client = connect(url, { transports: ["websocket"], query: { watch: role === "watcher" ? "yes" : "no" } });
          client.onAny((name: string) => received[role].push(name));
          client.on("connect", () => resolve(client));
        }),
    ),
  );
  try {
    const publisher = createSocketPublisher(io);
    publisher.publish([event(1), event(2)]);
    publisher.publish([event(3)]);
    await vi.waitFor(() => expect(received.sidebar).toHaveLength(2));
    await settle(50);
    // the watcher has the events themselves, and its sidebar counts nothing for the open conversation
    expect(received.watcher).toEqual(["conversation-events", "conversation-events"]);
    expect(received.sidebar).toEqual(["activity", "activity"]);
  } finally {
    for (const client of clients) client.close();
    await io.close();
  }
});
