import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../config/config.ts";
import { anonymousHandshakeWait, DEFAULT_SOCKET_LIMITS, socketLimitsFromEnv } from "./limits.ts";

describe("socket limits from the environment", () => {
  it("uses the defaults when nothing is set", () => {
    expect(socketLimitsFromEnv(loadConfig({}).env)).toEqual(DEFAULT_SOCKET_LIMITS);
  });

  it("takes each BATON_SOCKET_* setting", () => {
    const env = loadConfig({
      BATON_SOCKET_HANDSHAKES_PER_USER: "5",
      BATON_SOCKET_HANDSHAKES_PER_ADDRESS: "10000",
      BATON_SOCKET_ANONYMOUS_HANDSHAKES_PER_ADDRESS: "7",
      BATON_SOCKET_EVENTS_PER_SECOND: "3",
    }).env;
    expect(socketLimitsFromEnv(env)).toEqual({
      ...DEFAULT_SOCKET_LIMITS,
      handshakesPerUser: 5,
      handshakesPerAddress: 10_000,
      anonymousHandshakesPerAddress: 7,
      eventsPerSecond: 3,
    });
  });

  it("refuses a limit that is not a positive integer, naming the variable", () => {
    expect(() => loadConfig({ BATON_SOCKET_HANDSHAKES_PER_USER: "0" })).toThrow(ConfigError);
    expect(() => loadConfig({ BATON_SOCKET_EVENTS_PER_SECOND: "many" })).toThrow(/BATON_SOCKET_EVENTS_PER_SECOND/);
  });
});

describe("per-address limits over IPv6", () => {
  it("count one /64 (what one subscriber or host is given) as one address", () => {
    const limits = { ...DEFAULT_SOCKET_LIMITS, anonymousHandshakesPerAddress: 5 };
    const prefix = `2001:db8:${Math.floor(Math.random() * 0xffff).toString(16)}:7`;
    const waits = Array.from({ length: 6 }, (_, i) => anonymousHandshakeWait(`${prefix}:${i}:${i}:${i}:${i + 1}`, limits));
    expect(waits.slice(0, 5)).toEqual([null, null, null, null, null]);
    expect(waits[5]).not.toBeNull();
    // the neighbouring /64 is someone else
    expect(anonymousHandshakeWait(`${prefix.slice(0, -1)}8::1`, limits)).toBeNull();
  });
});
