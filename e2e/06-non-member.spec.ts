import { expect, test } from "@playwright/test";
import { io } from "socket.io-client";
import { ConversationPage } from "./pages/conversation-page.ts";
import { adminContext, invitedContext } from "./support/accounts.ts";

test("6. a non-member gets no access to a conversation's page, API or socket room", async ({ browser, baseURL }) => {
  const admin = await adminContext(browser);
  const ada = new ConversationPage(admin.page);
  const conversationId = await ada.create("Private matters");
  await ada.send("Only for members");
  const eve = await invitedContext(browser, admin.page, "Eve");
  const origin = new URL(baseURL!).origin;

  // page: the same 404 as a conversation that does not exist
  const pageResponse = await eve.page.goto(`/c/${conversationId}`);
  expect(pageResponse?.status()).toBe(404);
  await expect(eve.page.getByText("Only for members")).toHaveCount(0);
  const missing = await eve.page.goto(`/c/does-not-exist`);
  expect(missing?.status()).toBe(404);

  // API: reads and writes are refused identically
  const api = eve.page.request;
  const read = await api.get(`/api/conversations/${conversationId}`);
  expect(read.status()).toBe(404);
  const post = await api.post(`/api/conversations/${conversationId}/messages`, { data: { body: "let me in" }, headers: { origin } });
  expect(post.status()).toBe(404);
  expect(await read.text()).not.toContain("Private matters");
  const list = await (await api.get("/api/conversations")).json();
  expect(JSON.stringify(list)).not.toContain(conversationId);

  // socket: the join is refused and no event of the room arrives
  const cookies = await eve.context.cookies();
  const socket = io(origin, {
    extraHeaders: { cookie: cookies.map((c) => `${c.name}=${c.value}`).join("; ") },
    transports: ["websocket", "polling"],
  });
  const received: unknown[] = [];
  socket.on("conversation-events", (events) => received.push(...events));
  const ack = await new Promise<{ ok: boolean; error?: string }>((resolve) =>
    socket.emit("conversation-join", { conversationId, afterSeq: 0 }, resolve),
  );
  expect(ack).toEqual({ ok: false, error: "not_found" });
  await ada.send("A secret after Eve tried to join");
  await eve.page.waitForTimeout(1000);
  expect(received).toEqual([]);
  socket.close();

  // and without any session the socket handshake itself is refused
  const anonymous = io(origin, { transports: ["websocket"], reconnection: false });
  const refusal = await new Promise<string>((resolve) => anonymous.on("connect_error", (error) => resolve(error.message)));
  expect(refusal).toBe("unauthenticated");
  anonymous.close();
  await admin.context.close();
  await eve.context.close();
});
