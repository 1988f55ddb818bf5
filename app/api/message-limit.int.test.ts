/**
 * Every message a person sends may wake the commander (a model call): a person's
 * messages are limited to MESSAGE_RATE a minute wherever they come from — the page, or
 * any of their personal tokens (up to 50, each with its own write budget) through the
 * automation API.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRouteHarness, type RouteHarness } from "@/server/http/testing/route-harness.ts";
import { MESSAGE_RATE } from "@/server/auth/rate-limit.ts";
import { browserRequest } from "@/server/auth/testing/accounts.ts";
import { dispatchV1 } from "@/server/api-v1/serve-v1.ts";
import * as tokens from "@/app/api/tokens/route.ts";
import * as messages from "@/app/api/conversations/[conversationId]/messages/route.ts";

let harness: RouteHarness;

beforeAll(async () => {
  harness = await createRouteHarness();
}, 60_000);

afterAll(async () => {
  await harness?.close();
});

async function personalToken(name: string): Promise<string> {
  const response = await tokens.POST(
    browserRequest("/api/tokens", { cookie: harness.cookie, body: { name, scopes: ["write"], expiresInDays: 1 } }),
  );
  expect(response.status).toBe(201);
  return ((await response.json()) as { token: string }).token;
}

const postWithToken = (token: string, body: string) =>
  dispatchV1(
    new Request(`http://baton.test/api/v1/conversations/${harness.fixture.conversationId}/messages`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ body }),
    }),
  );

describe("a person's messages", () => {
  it("are limited across the page and all their tokens", async () => {
    const owned = [await personalToken("a"), await personalToken("b"), await personalToken("c")];
    const statuses: number[] = [];
    for (let i = 0; i < MESSAGE_RATE.max; i++) statuses.push((await postWithToken(owned[i % owned.length], `note ${i}`)).status);
    expect(statuses).toEqual(Array.from({ length: MESSAGE_RATE.max }, () => 201));

    // a token not used yet, and the page: the person's limit is spent
    const limited = await postWithToken(await personalToken("fresh"), "one more");
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    const conversationId = harness.fixture.conversationId;
    const fromPage = await messages.POST(
      browserRequest(`/api/conversations/${conversationId}/messages`, { cookie: harness.cookie, body: { body: "and from the page" } }),
      { params: Promise.resolve({ conversationId }) },
    );
    expect(fromPage.status).toBe(429);
    await harness.fixture.executor.idle();
  }, 120_000);
});
