import { describe, expect, it } from "vitest";
import { fetchDatabaseUnreachable, saysDatabaseUnreachable } from "./readiness.ts";

const answering = (status: number, body: unknown) => (async () => Response.json(body, { status })) as unknown as typeof fetch;

describe("saysDatabaseUnreachable", () => {
  it("is true only for a readiness answer whose database check is unreachable", () => {
    expect(saysDatabaseUnreachable({ ready: false, checks: { database: "unreachable", migrations: "unknown", draining: false } })).toBe(
      true,
    );
    expect(saysDatabaseUnreachable({ ready: false, checks: { database: "ok", migrations: "pending", draining: false } })).toBe(false);
    expect(saysDatabaseUnreachable({ ready: true, checks: { database: "ok", migrations: "ok", draining: false } })).toBe(false);
    for (const other of [null, undefined, "unreachable", {}, { checks: null }, { checks: "unreachable" }])
      expect(saysDatabaseUnreachable(other)).toBe(false);
  });
});

describe("fetchDatabaseUnreachable", () => {
  it("reads the 503 readiness answer of an outage", async () => {
    const outage = { ready: false, checks: { database: "unreachable", migrations: "unknown", draining: false } };
    expect(await fetchDatabaseUnreachable(answering(503, outage))).toBe(true);
  });

  it("says false when the server is ready, draining, or does not answer", async () => {
    expect(await fetchDatabaseUnreachable(answering(200, { ready: true, checks: { database: "ok" } }))).toBe(false);
    expect(await fetchDatabaseUnreachable(answering(503, { ready: false, checks: { database: "ok", draining: true } }))).toBe(false);
    const offline = (async () => {
      throw new TypeError("Failed to fetch");
    }) as unknown as typeof fetch;
    expect(await fetchDatabaseUnreachable(offline)).toBe(false);
    const html = (async () => new Response("<html>", { status: 502 })) as unknown as typeof fetch;
    expect(await fetchDatabaseUnreachable(html)).toBe(false);
  });
});
