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

test("metrics are off unless a metrics or API token is configured", async ({ request }) => {
  const response = await request.get("/metrics");
  expect(response.status()).toBe(404);
  expect(await response.json()).toEqual({ error: "metrics are off: set BATON_METRICS_TOKEN" });
});
