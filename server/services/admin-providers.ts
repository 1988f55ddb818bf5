/**
 * Admin read model: the state of this process's per-model circuit breakers.
 * Checks the role itself: a layout is not a security boundary (partial renders skip it).
 */
import type { ProviderCircuits } from "../agents/circuit-breaker.ts";
import type { ProviderHealth, SandboxView } from "../protocol/rest/admin-views.ts";
import { SANDBOX_FIX, type Sandbox } from "../workspace/sandbox.ts";
import { assertAdmin, type Actor } from "../access/actor.ts";

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

/** The sandbox of agents' commands on this process: ready, unavailable (commands refused) or knowingly bypassed. */
export async function getSandboxState(input: { actor: Actor | null; sandbox: Sandbox }): Promise<SandboxView> {
  assertAdmin(input.actor);
  const status = await input.sandbox.status();
  return { state: status.state, reason: status.state === "ready" ? null : status.reason, fix: SANDBOX_FIX };
}
