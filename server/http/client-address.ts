/**
 * Who is at the other end of a request. Without a trusted proxy that is the TCP peer,
 * and X-Forwarded-* headers are the client's own words: the custom server strips them.
 * With BATON_TRUST_PROXY=<n> (n proxies in front, e.g. one load balancer) the client
 * address is the entry the outermost trusted proxy appended to X-Forwarded-For — the
 * n-th from the right, counting the TCP peer — never the leftmost, which the client
 * can write; the protocol is the proxy's X-Forwarded-Proto. Express's `trust proxy`
 * hop count works the same way.
 *
 * The custom server writes the answers into two headers that only it sets, and every
 * limiter, better-auth and the cookie code read those.
 */
import type { IncomingHttpHeaders } from "node:http";
import { isIPv4, isIPv6 } from "node:net";

export const CLIENT_IP_HEADER = "x-baton-client-ip";
export const CLIENT_PROTO_HEADER = "x-baton-client-proto";
const FORWARDED_HEADERS = ["x-forwarded-for", "x-forwarded-proto", "x-forwarded-host", "forwarded", "x-real-ip"];

const first = (value: string | string[] | undefined) => (Array.isArray(value) ? value.join(",") : value);

export function clientAddress(input: {
  remoteAddress: string | undefined;
  forwardedFor: string | string[] | undefined;
  trustProxy: number;
}): string {
  const peer = input.remoteAddress ?? "";
  if (input.trustProxy <= 0) return peer;
  const chain = (first(input.forwardedFor) ?? "")
    .split(",")
    .map((part) => part.trim())
    .filter(Boolean);
  const hops = [...chain, peer];
  return hops[Math.max(0, hops.length - 1 - input.trustProxy)] ?? peer;
}

/**
 * What a per-address limit counts: an IPv4 address as it is; an IPv6 address by its /64,
 * the block one subscriber, host or VM is given, since whoever holds one can use any of
 * its 2^64 addresses (each would otherwise start every per-address limit afresh).
 */
export function addressLimitKey(address: string): string {
  const plain = address.replace(/%.*$/, "");
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(plain);
  if (mapped && isIPv4(mapped[1])) return mapped[1];
  if (!isIPv6(plain)) return address;
  const [head, tail = ""] = plain.toLowerCase().split("::");
  const left = head ? head.split(":") : [];
  const right = plain.includes("::") && tail ? tail.split(":") : [];
  const groups = plain.includes("::") ? [...left, ...Array<string>(8 - left.length - right.length).fill("0"), ...right] : left;
  return `${groups
    .slice(0, 4)
    .map((group) => group.replace(/^0+(?=.)/, ""))
    .join(":")}::/64`;
}

export function clientProtocol(input: {
  encrypted: boolean;
  forwardedProto: string | string[] | undefined;
  trustProxy: number;
}): "http" | "https" {
  if (input.trustProxy > 0) {
    const proto = first(input.forwardedProto)?.split(",")[0]?.trim().toLowerCase();
    if (proto === "https" || proto === "http") return proto;
  }
  return input.encrypted ? "https" : "http";
}

/**
 * Sets the two client headers on an incoming Node request (overwriting whatever the
 * client sent under those names) and, without a trusted proxy, removes forwarding
 * headers so nothing downstream believes them.
 */
export function stampClientHeaders(
  request: { headers: IncomingHttpHeaders; socket: { remoteAddress?: string; encrypted?: boolean } },
  trustProxy: number,
): { address: string; protocol: "http" | "https" } {
  const address = clientAddress({
    remoteAddress: request.socket.remoteAddress,
    forwardedFor: request.headers["x-forwarded-for"],
    trustProxy,
  });
  const protocol = clientProtocol({
    encrypted: Boolean(request.socket.encrypted),
    forwardedProto: request.headers["x-forwarded-proto"],
    trustProxy,
  });
  if (trustProxy <= 0) for (const name of FORWARDED_HEADERS) delete request.headers[name];
  request.headers[CLIENT_IP_HEADER] = address;
  request.headers[CLIENT_PROTO_HEADER] = protocol;
  return { address, protocol };
}
