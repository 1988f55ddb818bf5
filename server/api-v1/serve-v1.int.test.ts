/**
 * The automation API as the custom server answers it (serve-v1.ts), over real HTTP:
 * routing by the route table, what Next used to add (security headers, gzip), the
 * answers Next did not give (JSON 404, 405 with Allow), and bodies read within the cap.
 */
import { createServer, request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRouteHarness, TEST_API_TOKEN, type RouteHarness } from "../http/testing/route-harness.ts";
import { createV1Server } from "./serve-v1.ts";

const MAX_BODY_BYTES = 64 * 1024;
let harness: RouteHarness;
let server: Server;
let base: string;

beforeAll(async () => {
  harness = await createRouteHarness();
  const api = createV1Server({ maxBodyBytes: MAX_BODY_BYTES });
  // what the lane leaves alone reaches the next handler (Next, in the real server)
  server = createServer((request, response) => {
    if (!api(request, response)) response.writeHead(418).end("not the API's");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  await harness?.close();
});

const auth = { authorization: `Bearer ${TEST_API_TOKEN}` };
const send = (path: string, init: RequestInit = {}) => fetch(`${base}${path}`, { ...init, headers: { ...auth, ...init.headers } });

/** A raw HTTP exchange: status, headers and the bytes as sent (fetch would decompress them). */
function raw(
  path: string,
  init: { method?: string; headers?: Record<string, string>; chunks?: Buffer[] } = {},
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(`${base}${path}`, { method: init.method ?? "GET", headers: { ...auth, ...init.headers } }, (incoming) => {
      const parts: Buffer[] = [];
      incoming.on("data", (part: Buffer) => parts.push(part));
      incoming.on("end", () => resolve({ status: incoming.statusCode!, headers: incoming.headers, body: Buffer.concat(parts) }));
    });
    outgoing.on("error", reject);
    for (const chunk of init.chunks ?? []) outgoing.write(chunk);
    outgoing.end();
  });
}

describe("the automation API served before Next", () => {
  it("answers a route with its handler, the baseline security headers and no-store", async () => {
    const response = await send("/api/v1/agents");
    expect(response.status).toBe(200);
    expect((await response.json()).agents.map((agent: { handle: string }) => agent.handle)).toContain("writer");
    expect(
      Object.fromEntries(
        ["x-content-type-options", "x-frame-options", "referrer-policy", "cache-control"].map((name) => [name, response.headers.get(name)]),
      ),
    ).toEqual({
      "x-content-type-options": "nosniff",
      "x-frame-options": "DENY",
      "referrer-policy": "same-origin",
      "cache-control": "no-store",
    });
    expect((await send("/api/v1/agents", { headers: { authorization: "Bearer wrong-token-0123456789" } })).status).toBe(401);
  });

  it("routes path parameters (decoded), a trailing slash and the query string", async () => {
    const conversationId = harness.fixture.conversationId;
    const created = await send(`/api/v1/conversations/${encodeURIComponent(conversationId)}/messages/`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ body: "hello from the lane" }),
    });
    expect(created.status).toBe(201);
    expect((await created.json()).body).toBe("hello from the lane");
    await harness.fixture.executor.idle();
    const replay = await send(`/api/v1/conversations/${conversationId}/events?after=0&limit=1`);
    expect(replay.status).toBe(200);
    expect((await replay.json()).events).toHaveLength(1);
    expect((await send(`/api/v1/conversations/${conversationId}/events?limit=0`)).status).toBe(400);
  });

  it("answers an unknown path with JSON 404 naming it, and leaves paths outside /api/v1 to the next handler", async () => {
    const missing = await send("/api/v1/nothing/here");
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ error: { code: "not_found", message: "no such endpoint: /api/v1/nothing/here" } });
    expect(missing.headers.get("x-content-type-options")).toBe("nosniff");
    expect((await send("/api/v1x")).status).toBe(418);
    expect((await send("/api/conversations")).status).toBe(418);
  });

  it("answers another method with 405 and Allow, OPTIONS with 204 and Allow, HEAD with GET's headers and no body", async () => {
    const wrong = await send("/api/v1/agents", { method: "PUT" });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get("allow")).toBe("GET, HEAD, OPTIONS");
    expect((await wrong.json()).error).toEqual({
      code: "method_not_allowed",
      message: "/api/v1/agents answers GET, HEAD, OPTIONS, not PUT",
    });

    const options = await send("/api/v1/conversations", { method: "OPTIONS" });
    expect(options.status).toBe(204);
    expect(options.headers.get("allow")).toBe("GET, POST, HEAD, OPTIONS");

    const head = await raw("/api/v1/agents", { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(head.headers["content-type"]).toMatch(/^application\/json/);
    expect(head.body.byteLength).toBe(0);
  });

  it("refuses what no handler should see: a bad %-escape (400), an id no database holds (404), a TRACE (400)", async () => {
    const badEscape = await send("/api/v1/plans/%E0%A4%A");
    expect(badEscape.status).toBe(400);
    expect((await badEscape.json()).error.message).toBe("id: the path segment is not valid %-encoding");
    expect((await send("/api/v1/plans/abc%00def")).status).toBe(404);
    expect((await send(`/api/v1/plans/${"x".repeat(300)}`)).status).toBe(404);
    const trace = await raw("/api/v1/agents", { method: "TRACE" });
    expect(trace.status).toBe(400);
    expect(JSON.parse(trace.body.toString()).error.message).toMatch(/^the request could not be read: .*TRACE/);
  });

  it("gzips an answer of 1 kB or more for a client that accepts it, and only then", async () => {
    const { conversationId } = harness.fixture;
    for (let i = 0; i < 6; i++) {
      const posted = await send(`/api/v1/conversations/${conversationId}/messages`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ body: `note ${i}` }),
      });
      expect(posted.status).toBe(201);
    }
    const path = `/api/v1/conversations/${conversationId}/events?after=0`;
    const plain = await raw(path);
    expect(plain.body.byteLength).toBeGreaterThan(1024);
    expect(plain.headers["content-encoding"]).toBeUndefined();
    const zipped = await raw(path, { headers: { "accept-encoding": "gzip" } });
    expect(zipped.headers["content-encoding"]).toBe("gzip");
    expect(zipped.headers.vary).toMatch(/accept-encoding/i);
    expect(JSON.parse(gunzipSync(zipped.body).toString())).toEqual(JSON.parse(plain.body.toString()));
    expect((await raw(path, { headers: { "accept-encoding": "gzip;q=0" } })).headers["content-encoding"]).toBeUndefined();
  });

  it("reads a chunked body only up to the cap and answers 413 naming it, storing nothing", async () => {
    const messages = await harness.fixture.db.prisma.message.count();
    const chunk = Buffer.alloc(16 * 1024, 0x20);
    const tooLarge = await raw(`/api/v1/conversations/${harness.fixture.conversationId}/messages`, {
      method: "POST",
      headers: { "content-type": "application/json", "transfer-encoding": "chunked" },
      chunks: Array.from({ length: 8 }, () => chunk),
    });
    expect(tooLarge.status).toBe(413);
    expect(JSON.parse(tooLarge.body.toString()).error.message).toBe("The request body is larger than 64 KB.");
    expect(await harness.fixture.db.prisma.message.count()).toBe(messages);
  });
});
