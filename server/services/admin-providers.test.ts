import { describe, expect, it } from "vitest";
import { ProviderCircuits } from "../agents/circuit-breaker.ts";
import { getProviderHealth } from "./admin-providers.ts";

describe("provider health for admins", () => {
  it("refuses anyone but an admin, whatever page asked", () => {
    const circuits = new ProviderCircuits();
    expect(() => getProviderHealth({ actor: null, circuits })).toThrow(expect.objectContaining({ code: "unauthenticated" }));
    expect(() => getProviderHealth({ actor: { id: "u1", role: "member" }, circuits })).toThrow(
      expect.objectContaining({ code: "forbidden" }),
    );
  });

  it("shows each provider's circuit: state, failures, next probe", async () => {
    let now = 5_000;
    const circuits = new ProviderCircuits({
      policy: { failureThreshold: 2, coolDownMs: 10_000 },
      clock: { now: () => now, setTimer: () => () => {} },
    });
    const signal = new AbortController().signal;
    for (let i = 0; i < 2; i++)
      (
        await circuits.acquire({ provider: "anthropic", model: "anthropic:claude-haiku-4-5" }, { signal, deadline: Infinity })
      ).failedTransiently("529 overloaded");
    (await circuits.acquire({ provider: "openai", model: "openai:gpt-4.1" }, { signal, deadline: Infinity })).succeeded();
    now = 6_000;
    const health = getProviderHealth({ actor: { id: "a1", role: "admin" }, circuits, now });
    expect(health.enabled).toBe(true);
    expect(health.providers).toEqual([
      expect.objectContaining({
        provider: "anthropic",
        model: "anthropic:claude-haiku-4-5",
        state: "open",
        consecutiveFailures: 2,
        nextProbeAt: 15_000,
        lastFailure: "529 overloaded",
        opened: 1,
      }),
      expect.objectContaining({ provider: "openai", model: "openai:gpt-4.1", state: "closed", consecutiveFailures: 0, nextProbeAt: null }),
    ]);
    expect(getProviderHealth({ actor: { id: "a1", role: "admin" }, circuits: null }).enabled).toBe(false);
  });
});
