/**
 * Signed reactions (webhooks) as Slack and GitHub sign theirs: the signature covers a
 * timestamp, the delivery id and the path with the body; stale, replayed and
 * re-targeted deliveries are refused, and an oversized body is refused unread.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  countingStream,
  createRouteHarness,
  signDelivery,
  TEST_API_TOKEN,
  type RouteHarness,
} from "@/server/http/testing/route-harness.ts";
import { dispatchV1 } from "./serve-v1.ts";

let harness: RouteHarness;
let conversationId: string;
let otherConversationId: string;

beforeAll(async () => {
  harness = await createRouteHarness();
  conversationId = harness.fixture.conversationId;
  otherConversationId = (
    await harness.fixture.services.createConversation({ title: "other", agentHandles: ["writer"], userId: harness.apiUserId })
  ).id;
});

afterAll(async () => {
  await harness?.close();
});

const pathOf = (id: string) => `/api/v1/conversations/${id}/reactions`;
const now = () => Math.floor(Date.now() / 1000);
let deliveries = 0;
const nextDelivery = () => `delivery-${++deliveries}-${Date.now()}`;
const reactionBody = (text = "build failed") => JSON.stringify({ source: "ci", target: { agent: "writer" }, payload: text });

function post(input: { id?: string; body?: BodyInit; headers?: Record<string, string> }): Promise<Response> {
  const id = input.id ?? conversationId;
  return dispatchV1(
    new Request(`http://baton.test${pathOf(id)}`, {
      method: "POST",
      headers: { "content-type": "application/json", ...input.headers },
      body: input.body,
      // @ts-expect-error undici needs duplex for a streamed body; lib.dom does not know it
      duplex: "half",
    }),
  );
}

function signed(input: { id?: string; signFor?: string; body?: string; timestamp?: number; delivery?: string }) {
  const body = input.body ?? reactionBody();
  const timestamp = input.timestamp ?? now();
  const delivery = input.delivery ?? nextDelivery();
  const signature = signDelivery({ timestamp, delivery, path: pathOf(input.signFor ?? input.id ?? conversationId), body });
  return post({
    id: input.id,
    body,
    headers: { "x-baton-timestamp": String(timestamp), "x-baton-delivery": delivery, "x-baton-signature": signature },
  });
}

const messageCount = () => harness.fixture.db.prisma.message.count();

describe("signed reactions", () => {
  it("accept a fresh, correctly signed delivery", async () => {
    const response = await signed({});
    expect(response.status).toBe(202);
    expect((await response.json()).agent).toBe("writer");
    await harness.fixture.executor.idle();
  });

  it("refuse a replayed delivery, and the refusal posts nothing", async () => {
    const delivery = nextDelivery();
    const timestamp = now();
    expect((await signed({ delivery, timestamp })).status).toBe(202);
    await harness.fixture.executor.idle();
    const before = await messageCount();
    const replay = await signed({ delivery, timestamp });
    expect(replay.status).toBe(409);
    expect((await replay.json()).error.message).toContain(delivery);
    expect(await messageCount()).toBe(before);
  });

  it("keep delivery ids in the database until their window has passed, then prune them", async () => {
    const delivery = nextDelivery();
    expect((await signed({ delivery })).status).toBe(202);
    const stored = await harness.fixture.db.prisma.webhookDelivery.findUniqueOrThrow({ where: { id: delivery } });
    expect(stored.expiresAt.getTime()).toBeGreaterThan(Date.now() + 4 * 60_000);
    await harness.fixture.db.prisma.webhookDelivery.create({ data: { id: "long-gone", expiresAt: new Date(Date.now() - 1000) } });
    expect((await signed({})).status).toBe(202);
    expect(await harness.fixture.db.prisma.webhookDelivery.findUnique({ where: { id: "long-gone" } })).toBeNull();
    await harness.fixture.executor.idle();
  });

  it("refuse a delivery signed for another conversation", async () => {
    const before = await messageCount();
    const response = await signed({ id: otherConversationId, signFor: conversationId });
    expect(response.status).toBe(401);
    expect(await messageCount()).toBe(before);
  });

  it.each([
    ["six minutes old", -360],
    ["six minutes ahead", 360],
  ])("refuse a timestamp %s", async (_, offset) => {
    const response = await signed({ timestamp: now() + offset });
    expect(response.status).toBe(401);
    expect((await response.json()).error.message).toMatch(/Timestamp/);
  });

  it("accept a timestamp four minutes old (clock skew)", async () => {
    expect((await signed({ timestamp: now() - 240 })).status).toBe(202);
    await harness.fixture.executor.idle();
  });

  it.each([
    ["no timestamp", { "x-baton-delivery": "d-1", "x-baton-signature": "sha256=00" }],
    ["no delivery id", { "x-baton-timestamp": "1", "x-baton-signature": "sha256=00" }],
  ])("refuse a signature with %s", async (_, headers) => {
    const response = await post({ body: reactionBody(), headers });
    expect(response.status).toBe(401);
  });

  it("refuse a signature over the body alone (the old scheme)", async () => {
    const body = reactionBody();
    const { createHmac } = await import("node:crypto");
    const bodyOnly = `sha256=${createHmac("sha256", "webhook-secret-0123456789").update(body).digest("hex")}`;
    const response = await post({
      body,
      headers: { "x-baton-timestamp": String(now()), "x-baton-delivery": nextDelivery(), "x-baton-signature": bodyOnly },
    });
    expect(response.status).toBe(401);
  });

  it("refuse an oversized streamed body before reading it, signed or not", async () => {
    const hundredMegabytes = countingStream(64 * 1024, 100 * 1024 * 1024);
    const response = await post({
      body: hundredMegabytes.stream,
      headers: { "x-baton-timestamp": String(now()), "x-baton-delivery": nextDelivery(), "x-baton-signature": `sha256=${"0".repeat(64)}` },
    });
    expect(response.status).toBe(413);
    expect(hundredMegabytes.pulled()).toBeLessThanOrEqual(2 * 1024 * 1024);

    const unsigned = countingStream(64 * 1024, 100 * 1024 * 1024);
    const byToken = await post({ body: unsigned.stream, headers: { authorization: `Bearer ${TEST_API_TOKEN}` } });
    expect(byToken.status).toBe(413);
    expect(unsigned.pulled()).toBeLessThanOrEqual(2 * 1024 * 1024);
  });

  it("refuse a declared Content-Length past the cap without reading a byte", async () => {
    const body = countingStream(64 * 1024, 100 * 1024 * 1024);
    const response = await post({
      body: body.stream,
      headers: { "content-length": String(100 * 1024 * 1024), authorization: `Bearer ${TEST_API_TOKEN}` },
    });
    expect(response.status).toBe(413);
    expect(body.pulled()).toBeLessThanOrEqual(64 * 1024 * 2);
  });
});
