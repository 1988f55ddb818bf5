import { expect, it } from "vitest";
import type { Server } from "socket.io";
import type { ConversationEventDTO } from "../../protocol/events.ts";
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
function fakeCluster() {
  const delivered: string[] = [];
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
  };
  const adapter = {
    async broadcast(packet: { data: unknown[] }, opts: { rooms: Set<string>; except: Set<string> }) {
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 5));
      // the publisher targets a room and excludes it here: nothing may reach local sockets this way
      expect([...opts.rooms].every((room) => opts.except.has(room))).toBe(true);
      sent.push({ name: packet.data[0] as string, data: packet.data[1] });
    },
    onMessage(message: { type: number; data: { packet: { data: unknown[] } } }) {
      const [name, payload] = message.data.packet.data as [string, { conversationId: string; seq?: number }];
      write(name, payload);
    },
  };
  const io = {
    of: () => ({ adapter }),
    local: { to: () => ({ emit: (name: string, payload: { conversationId: string; seq?: number }) => write(name, payload) }) },
  } as unknown as Server;
  const fromOtherProcess = (name: string, data: unknown) =>
    adapter.onMessage({ type: 3, data: { packet: { type: 2, data: [name, data] } } as never });
  return { io, delivered, packets, deltas, sent, fromOtherProcess };
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

it("with other processes, sends each unit's events as one message, in order, after the local write", async () => {
  const { io, delivered, sent } = fakeCluster();
  const publisher = createSocketPublisher(io);
  publisher.watchCluster();
  for (let seq = 1; seq <= 30; seq += 3) publisher.publish([event(seq), event(seq + 1), event(seq + 2)]);
  publisher.runDelta("c1", "r1", "text");
  await settle(400);
  expect(delivered).toEqual(Array.from({ length: 30 }, (_, i) => `c1:${i + 1}`));
  const batches = sent.filter((message) => message.name === "baton:conversation-events");
  expect(batches).toHaveLength(10);
  expect(batches.flatMap((message) => (message.data as ConversationEventDTO[]).map((e) => e.seq))).toEqual(
    Array.from({ length: 30 }, (_, i) => i + 1),
  );
  expect(sent.at(-1)).toEqual({ name: "baton:run-delta", data: { conversationId: "c1", runId: "r1", text: "text" } });
});

it("writes another process's events to local sockets, each after its predecessor, own or theirs", async () => {
  const { io, delivered, deltas, fromOtherProcess } = fakeCluster();
  const publisher = createSocketPublisher(io, { holdMs: 2_000 });
  publisher.watchCluster();
  publisher.publish([event(1)]);
  await settle(50);
  // another process committed 2 and 4-5, this one 3: 4-5 arrive first, then 3 is published, then 2 arrives
  fromOtherProcess("baton:conversation-events", [event(4), event(5)]);
  publisher.publish([event(3)]);
  await settle(50);
  expect(delivered).toEqual(["c1:1"]);
  fromOtherProcess("baton:conversation-events", [event(2)]);
  await settle(50);
  expect(delivered).toEqual(["c1:1", "c1:2", "c1:3", "c1:4", "c1:5"]);
  fromOtherProcess("baton:run-delta", { conversationId: "c1", runId: "r2", text: "streamed" });
  expect(deltas).toEqual(["streamed"]);
});

it("does not wait longer than the hold for a predecessor that never comes", async () => {
  const { io, delivered } = fakeCluster();
  const publisher = createSocketPublisher(io, { holdMs: 100 });
  publisher.watchCluster();
  publisher.publish([event(1)]);
  publisher.publish([event(3)]); // 2 was committed by a process that died before publishing it
  await settle(50);
  expect(delivered).toEqual(["c1:1"]);
  await settle(150);
  expect(delivered).toEqual(["c1:1", "c1:3"]);
});
