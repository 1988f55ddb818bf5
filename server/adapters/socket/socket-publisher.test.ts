import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { expect, it, vi } from "vitest";
import { Server } from "socket.io";
import { io as connect, type Socket as ClientSocket } from "socket.io-client";
import type { ConversationEventDTO } from "../../protocol/events.ts";
import { activityRoom, conversationRoom } from "../../protocol/rooms.ts";
import { createSocketPublisher } from "./socket-publisher.ts";

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
 * An io with a cluster adapter: `io.local` writes to this process's sockets at once;
 * `adapter.broadcast` is a message to the other processes, which resolves after a random
 * delay (the NOTIFY) and is recorded in `sent`; `onMessage` is how another process's
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
  const sent: { name: string; data: unknown }[] = [];
  type Payload = { conversationId: string; seq?: number; text?: string };
  const write = (name: string, payload: Payload | Payload[]) => {
    if (name === "conversation-events") {
      packets.push((payload as Payload[]).length);
      for (const event of payload as Payload[]) delivered.push(`${event.conversationId}:${event.seq}`);
    }
    if (name === "run-delta") deltas.push((payload as Payload).text!);
    if (name === "activity") activity.push(`${(payload as Payload).conversationId}:${(payload as Payload).seq}`);
  };
  const adapter = {
    uid: "this-process",
    // this process's sockets, by room: one browser watches c1 unless told otherwise
    rooms: new Map(options.watched === false ? [] : [[conversationRoom("c1"), new Set(["socket-1"])]]),
    async broadcast(packet: { data: unknown[] }, opts: { rooms: Set<string>; except: Set<string> }) {
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 5));
      // the publisher targets a room and excludes it here: nothing may reach local sockets this way
      expect([...opts.rooms].every((room) => opts.except.has(room))).toBe(true);
      sent.push({ name: packet.data[0] as string, data: packet.data[1] });
    },
    onMessage(message: { uid?: string; type: number; data: { packet: { data: unknown[] } } }) {
      if (message.uid === "this-process") return; // the adapter drops its own messages
      const [name, payload] = message.data.packet.data as [string, { conversationId: string; seq?: number }];
      write(name, payload);
    },
  };
  const io = {
    of: () => ({ adapter }),
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
  const fromOtherProcess = (name: string, data: unknown, uid = "other-1") =>
    adapter.onMessage({ uid, type: 3, data: { packet: { type: 2, data: [name, data] } } } as never);
  /** another process committed these events and tells the cluster their seqs */
  const committedElsewhere = (uid: string, ...events: ConversationEventDTO[]) => {
    for (const e of events) log.set(e.seq, e);
    fromOtherProcess(
      "baton:conversation-seqs",
      { conversationId: events[0].conversationId, first: events[0].seq, last: events.at(-1)!.seq },
      uid,
    );
  };
  return { io, delivered, activity, packets, deltas, sent, reads, readEvents, fromOtherProcess, committedElsewhere };
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
  const { io, delivered, sent, readEvents } = fakeCluster();
  const publisher = createSocketPublisher(io);
  publisher.watchCluster(readEvents);
  for (let seq = 1; seq <= 30; seq += 3) publisher.publish([event(seq), event(seq + 1), event(seq + 2)]);
  publisher.runDelta("c1", "r1", "text");
  await settle(400);
  expect(delivered).toEqual(Array.from({ length: 30 }, (_, i) => `c1:${i + 1}`));
  const units = sent.filter((message) => message.name === "baton:conversation-seqs");
  // the seqs, not the events: the other processes read what they need from the log
  expect(units.map((message) => message.data)).toEqual(
    Array.from({ length: 10 }, (_, i) => ({ conversationId: "c1", first: 3 * i + 1, last: 3 * i + 3 })),
  );
  expect(sent.at(-1)).toEqual({ name: "baton:run-delta", data: { conversationId: "c1", runId: "r1", text: "text" } });
});

it("reads another process's events from the log and writes them to local sockets, each after its predecessor, own or theirs", async () => {
  const { io, delivered, activity, deltas, readEvents, fromOtherProcess, committedElsewhere } = fakeCluster();
  const publisher = createSocketPublisher(io, { holdMs: 2_000 });
  publisher.watchCluster(readEvents);
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
  fromOtherProcess("baton:run-delta", { conversationId: "c1", runId: "r2", text: "streamed" });
  expect(deltas).toEqual(["streamed"]);
});

it("many units from other processes, read in any order, reach the sockets in seq order", async () => {
  const { io, delivered, packets, reads, readEvents, committedElsewhere } = fakeCluster();
  const publisher = createSocketPublisher(io, { holdMs: 2_000 });
  publisher.watchCluster(readEvents);
  // one process's units, in the order it sent them; their reads end in any order
  for (let seq = 1; seq <= 60; seq += 2) committedElsewhere("other-1", event(seq), event(seq + 1));
  await settle(100);
  expect(delivered).toEqual(Array.from({ length: 60 }, (_, i) => `c1:${i + 1}`));
  expect(packets).toEqual(Array.from({ length: 30 }, () => 2));
  expect(reads).toHaveLength(30);
});

it("reads nothing for a conversation no socket here watches, and holds nothing behind it", async () => {
  const { io, delivered, activity, reads, readEvents, committedElsewhere } = fakeCluster({ watched: false });
  const publisher = createSocketPublisher(io, { holdMs: 2_000 });
  publisher.watchCluster(readEvents);
  publisher.publish([event(1)]);
  committedElsewhere("other-1", event(2), event(3));
  publisher.publish([event(4)]);
  await settle(50);
  expect(reads).toEqual([]);
  // this process's own next unit was not held for seqs 2-3 (the hold is 2 s)
  expect(delivered).toEqual(["c1:1", "c1:4"]);
  expect(activity).toEqual(["c1:1", "c1:3", "c1:4"]);
});

it("a read that fails leaves the unit to the browsers' replay and holds nothing behind it", async () => {
  const { io, delivered, readEvents, committedElsewhere } = fakeCluster({ failReads: true });
  const publisher = createSocketPublisher(io, { holdMs: 2_000 });
  publisher.watchCluster(readEvents);
  publisher.publish([event(1)]);
  committedElsewhere("other-1", event(2));
  publisher.publish([event(3)]);
  await settle(50);
  expect(delivered).toEqual(["c1:1", "c1:3"]);
});

it("still delivers the events a process of the previous version sends whole", async () => {
  const { io, delivered, reads, readEvents, fromOtherProcess } = fakeCluster();
  const publisher = createSocketPublisher(io, { holdMs: 2_000 });
  publisher.watchCluster(readEvents);
  publisher.publish([event(1)]);
  await settle(20);
  // two processes of the previous version: 3 arrives before 2
  fromOtherProcess("baton:conversation-events", [event(3)], "old-1");
  fromOtherProcess("baton:conversation-events", [event(2)], "old-2");
  await settle(50);
  expect(delivered).toEqual(["c1:1", "c1:2", "c1:3"]);
  expect(reads).toEqual([]);
});

it("does not wait longer than the hold for a predecessor that never comes", async () => {
  const { io, delivered, readEvents } = fakeCluster();
  const publisher = createSocketPublisher(io, { holdMs: 100 });
  publisher.watchCluster(readEvents);
  publisher.publish([event(1)]);
  publisher.publish([event(3)]); // 2 was committed by a process that died before publishing it
  await settle(50);
  expect(delivered).toEqual(["c1:1"]);
  await settle(150);
  expect(delivered).toEqual(["c1:1", "c1:3"]);
});

it("a unit's statement can announce its seqs itself: the notice is the message the cluster would carry, and publishing then sends nothing more", async () => {
  const { io, delivered, sent, readEvents, fromOtherProcess } = fakeCluster();
  const publisher = createSocketPublisher(io);
  expect(publisher.commitNotice?.("c1")).toBeNull(); // nobody else listens yet
  publisher.watchCluster(readEvents);
  expect(publisher.commitNotice?.("c1")).toBeNull(); // no channel to announce on
  publisher.watchCluster(readEvents, { notifyChannel: "socket.io#/" });
  const notice = publisher.commitNotice!("c1")!;
  expect(notice.channel).toBe("socket.io#/");
  // what the database sends: the notice's text around the seqs the events got
  const text = `${notice.before}${JSON.stringify({ conversationId: "c1", first: 1, last: 2 })}${notice.after}`;
  const message = JSON.parse(text) as {
    uid: string;
    type: number;
    data: { packet: { data: unknown[] }; opts: { rooms: string[]; except: string[] } };
  };
  expect(message.uid).toBe("this-process");
  expect(message.type).toBe(3);
  expect(message.data.packet.data).toEqual(["baton:conversation-seqs", { conversationId: "c1", first: 1, last: 2 }]);
  expect(message.data.opts.rooms).toEqual([conversationRoom("c1")]);
  expect(message.data.opts.except).toEqual([conversationRoom("c1")]);

  publisher.publish([event(1), event(2)], { othersTold: true });
  publisher.publish([event(3)]); // a unit written without the notice is announced after its commit
  await settle(50);
  expect(delivered).toEqual(["c1:1", "c1:2", "c1:3"]);
  expect(sent.map((m) => m.data)).toEqual([{ conversationId: "c1", first: 3, last: 3 }]);

  // another process's notice, as its statement sent it, is read and delivered here
  const theirs = JSON.parse(`${notice.before}${JSON.stringify({ conversationId: "c1", first: 4, last: 4 })}${notice.after}`) as {
    data: { packet: { data: [string, unknown] } };
  };
  const [name, seqs] = theirs.data.packet.data;
  const log = [event(4)];
  const reading = createSocketPublisher(io, { holdMs: 2_000 });
  reading.watchCluster(async () => log);
  fromOtherProcess(name, seqs);
  await settle(50);
  expect(delivered).toEqual(["c1:1", "c1:2", "c1:3", "c1:4"]);
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
