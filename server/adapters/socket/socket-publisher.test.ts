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
 * An io whose adapter behaves like the cluster adapter: `broadcast` resolves after a
 * random delay (the NOTIFY) and only then writes to local sockets; `onMessage` writes
 * another process's packet at once. `delivered` is what local sockets received, in order.
 */
function fakeCluster() {
  const delivered: string[] = [];
  const write = (packet: { data: unknown[] }) => {
    const [name, payload] = packet.data as [string, { conversationId: string; seq?: number }];
    if (name === "conversation-event") delivered.push(`${payload.conversationId}:${payload.seq}`);
  };
  const adapter = {
    async broadcast(packet: { data: unknown[] }) {
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 5));
      write(packet);
    },
    onMessage(message: { type: number; data: { packet: { data: unknown[] } } }) {
      write(message.data.packet);
    },
  };
  const io = { of: () => ({ adapter }) } as unknown as Server;
  const remote = (e: ConversationEventDTO) =>
    adapter.onMessage({ type: 3, data: { packet: { type: 2, data: ["conversation-event", e] } } as never });
  return { io, delivered, remote };
}

const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

it("hands a conversation's events to the adapter one at a time, so they arrive in seq order", async () => {
  const { io, delivered } = fakeCluster();
  const publisher = createSocketPublisher(io);
  for (let seq = 1; seq <= 30; seq += 3) publisher.publish([event(seq), event(seq + 1), event(seq + 2)]);
  publisher.publish([event(1, "c2")]);
  await settle(400);
  expect(delivered.filter((d) => d.startsWith("c1:"))).toEqual(Array.from({ length: 30 }, (_, i) => `c1:${i + 1}`));
  expect(delivered).toContain("c2:1");
});

it("with other processes, an event waits for its predecessor, own or theirs", async () => {
  const { io, delivered, remote } = fakeCluster();
  const publisher = createSocketPublisher(io, { holdMs: 2_000 });
  publisher.watchCluster();
  publisher.publish([event(1)]);
  await settle(50);
  // another process committed 2 and 4, this one 3: 4 arrives first, then 3 is published, then 2 arrives
  remote(event(4));
  publisher.publish([event(3)]);
  await settle(50);
  expect(delivered).toEqual(["c1:1"]);
  remote(event(2));
  await settle(50);
  expect(delivered).toEqual(["c1:1", "c1:2", "c1:3", "c1:4"]);
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
