import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../config/config.ts";
import { DEFAULT_SOCKET_LIMITS, socketLimitsFromEnv } from "./limits.ts";

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
