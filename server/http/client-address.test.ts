import { describe, expect, it } from "vitest";
import {
  addressLimitKey,
  clientAddress,
  clientProtocol,
  stampClientHeaders,
  CLIENT_IP_HEADER,
  CLIENT_PROTO_HEADER,
} from "./client-address.ts";

describe("client address and protocol", () => {
  it("without a trusted proxy uses the TCP peer and ignores forwarding headers", () => {
    expect(clientAddress({ remoteAddress: "10.0.0.5", forwardedFor: "1.2.3.4", trustProxy: 0 })).toBe("10.0.0.5");
    expect(clientProtocol({ encrypted: false, forwardedProto: "https", trustProxy: 0 })).toBe("http");
  });

  it("behind one proxy takes the address that proxy appended, not the client's own claim", () => {
    // the client sent "X-Forwarded-For: 6.6.6.6"; the load balancer appended the real 1.2.3.4
    expect(clientAddress({ remoteAddress: "10.0.0.2", forwardedFor: "6.6.6.6, 1.2.3.4", trustProxy: 1 })).toBe("1.2.3.4");
    expect(clientAddress({ remoteAddress: "10.0.0.2", forwardedFor: "6.6.6.6, 1.2.3.4, 10.0.0.9", trustProxy: 2 })).toBe("1.2.3.4");
    // no header at all: the peer
    expect(clientAddress({ remoteAddress: "10.0.0.2", forwardedFor: undefined, trustProxy: 1 })).toBe("10.0.0.2");
    expect(clientProtocol({ encrypted: false, forwardedProto: "https", trustProxy: 1 })).toBe("https");
    expect(clientProtocol({ encrypted: false, forwardedProto: "gopher", trustProxy: 1 })).toBe("http");
  });

  it("stamps the headers and, untrusted, strips forwarding headers a client could forge", () => {
    const request = {
      headers: { "x-forwarded-for": "6.6.6.6", "x-forwarded-host": "evil.example", [CLIENT_IP_HEADER]: "forged" } as Record<string, string>,
      socket: { remoteAddress: "127.0.0.1" },
    };
    stampClientHeaders(request, 0);
    expect(request.headers[CLIENT_IP_HEADER]).toBe("127.0.0.1");
    expect(request.headers[CLIENT_PROTO_HEADER]).toBe("http");
    expect(request.headers["x-forwarded-host"]).toBeUndefined();
    expect(request.headers["x-forwarded-for"]).toBeUndefined();
  });
});

describe("the address a per-address limit counts", () => {
  it("is an IPv4 address as it is, and an IPv6 one by its /64", () => {
    expect(addressLimitKey("203.0.113.7")).toBe("203.0.113.7");
    expect(addressLimitKey("::ffff:203.0.113.7")).toBe("203.0.113.7");
    expect(addressLimitKey("2001:db8:1:2:aaaa:bbbb:cccc:dddd")).toBe("2001:db8:1:2::/64");
    expect(addressLimitKey("2001:db8:1:2::1")).toBe("2001:db8:1:2::/64");
    expect(addressLimitKey("2001:DB8::1")).toBe("2001:db8:0:0::/64");
    expect(addressLimitKey("::1")).toBe("0:0:0:0::/64");
    expect(addressLimitKey("fe80::1%eth0")).toBe("fe80:0:0:0::/64");
    expect(addressLimitKey("")).toBe("");
    expect(addressLimitKey("unknown")).toBe("unknown");
  });
});
