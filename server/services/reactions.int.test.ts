/**
 * Emoji reactions through the database: stored once per person and emoji, summed per
 * emoji, published as a conversation event, members only, and gone with a deleted message.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createExecutorFixture, type ExecutorFixture } from "../executor/testing/executor-fixture.ts";
import { createMessageServices } from "./messages.ts";

let fixture: ExecutorFixture;
let services: ReturnType<typeof createMessageServices>;
let bea: { id: string; role: "member" };
let outsider: { id: string; role: "member" };

beforeAll(async () => {
  fixture = await createExecutorFixture();
  services = createMessageServices(fixture.executor);
  for (const name of ["Bea", "Olga"]) {
    const user = await fixture.db.prisma.user.create({ data: { id: randomUUID(), name, email: `${name}-${randomUUID()}@example.com` } });
    if (name === "Bea") {
      await fixture.db.prisma.membership.create({ data: { conversationId: fixture.conversationId, userId: user.id } });
      bea = { id: user.id, role: "member" };
    } else outsider = { id: user.id, role: "member" };
  }
}, 180_000);
afterAll(() => fixture.close());

it("adds and removes reactions per person and emoji, live for the conversation, members only", async () => {
  const me = { id: fixture.userId, role: "member" as const };
  const message = await fixture.say("Ship it?");
  const target = { conversationId: fixture.conversationId, messageId: message.id };
  await services.setReaction({ ...target, actor: me, emoji: "👍", on: true });
  await services.setReaction({ ...target, actor: me, emoji: "👍", on: true });
  const both = await services.setReaction({ ...target, actor: bea, emoji: "👍", on: true });
  expect(both).toEqual([{ emoji: "👍", people: [expect.objectContaining({ id: me.id }), { id: bea.id, name: "Bea" }] }]);

  const event = fixture.published.findLast((e) => e.type === "reactions-changed");
  expect(event?.payload).toEqual({ messageId: message.id, reactions: both });

  expect(await services.setReaction({ ...target, actor: me, emoji: "👍", on: false })).toEqual([
    { emoji: "👍", people: [{ id: bea.id, name: "Bea" }] },
  ]);
  await expect(services.setReaction({ ...target, actor: outsider, emoji: "🎉", on: true })).rejects.toMatchObject({ code: "not_found" });
  await expect(services.setReaction({ ...target, actor: me, emoji: "🦄", on: true })).rejects.toMatchObject({ code: "invalid_input" });
  expect(await fixture.db.prisma.messageReaction.count({ where: { messageId: message.id } })).toBe(1);

  // the snapshot carries them; a deleted message keeps none
  const snapshot = await fixture.services.getSnapshot({ actor: me, conversationId: fixture.conversationId });
  expect(snapshot.messages.find((m) => m.id === message.id)?.reactions).toEqual([{ emoji: "👍", people: [{ id: bea.id, name: "Bea" }] }]);
  const deleted = await services.deleteMessage({ ...target, actor: me });
  expect(deleted.reactions).toEqual([]);
  await expect(services.setReaction({ ...target, actor: bea, emoji: "👀", on: true })).rejects.toMatchObject({ code: "conflict" });
});
