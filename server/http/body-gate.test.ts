import { createServer, request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { refuseOversizedBody } from "./body-gate.ts";
import { MAX_UPLOAD_BYTES } from "../protocol/limits.ts";

let server: Server;
let port: number;
let reachedHandler = 0;

beforeAll(async () => {
  server = createServer((request, response) => {
    if (refuseOversizedBody(request, response, 1024 * 1024)) return;
    reachedHandler += 1;
    request.resume();
    request.on("end", () => response.end("ok"));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** Declares a length, sends only a little of it, and reads the answer. */
function post(path: string, declared: number): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      { port, path, method: "POST", headers: { "content-length": String(declared), "content-type": "application/json" } },
      (response) => {
        let body = "";
        response.on("data", (chunk) => (body += chunk));
        response.on("end", () => resolve({ status: response.statusCode ?? 0, body }));
      },
    );
    request.on("error", reject);
    request.write("x".repeat(Math.min(declared, 1024)));
    if (declared <= 1024) request.end();
  });
}

describe("the custom server's body gate", () => {
  it("answers 413 to a declared length past the cap, without calling the handler", async () => {
    const before = reachedHandler;
    const response = await post("/api/conversations", 100 * 1024 * 1024);
    expect(response.status).toBe(413);
    expect(JSON.parse(response.body).error.message).toContain("1 MB");
    expect(reachedHandler).toBe(before);
  });

  it("lets uploads declare their own, larger limit", async () => {
    const response = await post("/api/conversations/c1/uploads", MAX_UPLOAD_BYTES + 1024 * 1024);
    expect(response.status).toBe(413);
    expect(JSON.parse(response.body).error.message).toContain("10");
    const within = await post("/api/conversations/c1/uploads", 1000);
    expect(within.status).toBe(200);
  });

  it("passes a small body through", async () => {
    expect((await post("/api/conversations", 200)).status).toBe(200);
  });
});
