/**
 * Admin read model: the state of this process's per-provider circuit breakers.
 * Checks the role itself: a layout is not a security boundary (partial renders skip it).
 */
import type { ProviderCircuits } from "../agents/circuit-breaker.ts";
import type { ProviderHealth } from "../protocol/rest/admin-views.ts";
import { assertAdmin, type Actor } from "../auth/actor.ts";

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
