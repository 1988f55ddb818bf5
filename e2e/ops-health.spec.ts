import { expect, test } from "@playwright/test";

test("health probes answer without a session and reveal only check states", async ({ request }) => {
  const live = await request.get("/healthz");
  expect(live.status()).toBe(200);
  expect(await live.json()).toEqual({ status: "ok" });

  const ready = await request.get("/readyz");
  expect(ready.status()).toBe(200);
  expect(await ready.json()).toEqual({ ready: true, checks: { database: "ok", migrations: "ok", draining: false } });
  expect(ready.headers()["cache-control"]).toBe("no-store");
});
