import { describe, expect, it } from "vitest";
import { assertSameOrigin, HttpError } from "./guards.ts";

const request = (method: string, headers: Record<string, string>) =>
  new Request("http://baton.test/api/conversations", { method, headers: { host: "baton.test", ...headers } });

describe("assertSameOrigin", () => {
  it("lets reads and same-origin writes through", () => {
    expect(() => assertSameOrigin(request("GET", { origin: "https://evil.example" }), [])).not.toThrow();
    expect(() => assertSameOrigin(request("POST", { origin: "http://baton.test" }), [])).not.toThrow();
    expect(() => assertSameOrigin(request("POST", {}), [])).not.toThrow();
  });

  it("refuses a write from another site, by Origin or by Sec-Fetch-Site", () => {
    expect(() => assertSameOrigin(request("POST", { origin: "https://evil.example" }), [])).toThrow(HttpError);
    expect(() => assertSameOrigin(request("DELETE", { "sec-fetch-site": "cross-site" }), [])).toThrow(/Cross-site/);
  });

  it("accepts a configured trusted origin", () => {
    expect(() => assertSameOrigin(request("POST", { origin: "https://baton.example.org" }), ["https://baton.example.org"])).not.toThrow();
  });
});
