import { describe, expect, it } from "vitest";
import { contentSecurityPolicy, createNonce, securityHeaders, servedOverHttps } from "./security-headers.ts";

describe("security headers", () => {
  it("allow scripts by nonce only, forbid framing, keep styles and the same-origin socket working", () => {
    const policy = contentSecurityPolicy({ nonce: "abc123", dev: false, https: false });
    expect(policy).toContain("script-src 'self' 'nonce-abc123' 'strict-dynamic'");
    expect(policy).not.toContain("unsafe-eval");
    expect(policy).toContain("frame-ancestors 'none'");
    expect(policy).toContain("connect-src 'self'");
    expect(policy).toContain("object-src 'none'");
    expect(policy).not.toContain("upgrade-insecure-requests");
    // a nonce in style-src would silently disable 'unsafe-inline' for style attributes
    expect(policy).toMatch(/style-src 'self' 'unsafe-inline'(;|$)/);
    expect(contentSecurityPolicy({ nonce: "n", dev: true, https: true })).toMatch(/'unsafe-eval'.*upgrade-insecure-requests/);
  });

  it("send HSTS only over https", () => {
    expect(securityHeaders({ nonce: "n", dev: false, https: false })).not.toHaveProperty("Strict-Transport-Security");
    const secure = securityHeaders({ nonce: "n", dev: false, https: true });
    expect(secure["Strict-Transport-Security"]).toMatch(/^max-age=\d{7,}/);
    expect(secure).toMatchObject({ "Referrer-Policy": "same-origin", "X-Content-Type-Options": "nosniff" });
  });

  it("believe X-Forwarded-Proto only behind a trusted proxy", () => {
    expect(servedOverHttps({ publicUrl: "https://baton.example.org", trustProxy: false, forwardedProto: null })).toBe(true);
    expect(servedOverHttps({ publicUrl: "http://localhost:3000", trustProxy: false, forwardedProto: "https" })).toBe(false);
    expect(servedOverHttps({ publicUrl: undefined, trustProxy: true, forwardedProto: "https" })).toBe(true);
    expect(servedOverHttps({ publicUrl: undefined, trustProxy: true, forwardedProto: "http, https" })).toBe(false);
    expect(servedOverHttps({ publicUrl: undefined, trustProxy: true, forwardedProto: " HTTPS ,http" })).toBe(true);
    expect(servedOverHttps({ publicUrl: undefined, trustProxy: true, forwardedProto: null })).toBe(false);
  });

  it("make a fresh nonce every time", () => {
    const nonces = new Set(Array.from({ length: 50 }, createNonce));
    expect(nonces.size).toBe(50);
    for (const nonce of nonces) expect(Buffer.from(nonce, "base64")).toHaveLength(16);
  });
});
