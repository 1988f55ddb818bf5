/**
 * Admin read model: the state of this process's per-provider circuit breakers.
 * Checks the role itself: a layout is not a security boundary (partial renders skip it).
 */
import type { ProviderCircuitView, ProviderCircuits } from "../agents/circuit-breaker.ts";
import { assertAdmin, type Actor } from "../auth/actor.ts";

export interface ProviderHealth {
  /** when this snapshot was taken (epoch ms) */
  at: number;
  /** false when this process runs no breakers (then every call goes straight out) */
  enabled: boolean;
  providers: ProviderCircuitView[];
}

export function getProviderHealth(input: {
  actor: Actor | null;
  circuits: ProviderCircuits | null | undefined;
  now?: number;
}): ProviderHealth {
  assertAdmin(input.actor);
  return {
    at: input.now ?? Date.now(),
    enabled: Boolean(input.circuits),
    providers: input.circuits?.snapshot() ?? [],
  };
}
