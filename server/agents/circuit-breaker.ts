/**
 * One circuit breaker per model and key (`openai:gpt-4.1` and the OPENAI_API_KEY this
 * process uses: a process has one key per provider, so the model id names both), shared
 * by every run of the process. Per model, not per provider: one failing or overloaded
 * model must not stall the healthy models of the same provider. After `failureThreshold` transient failures in a row the
 * circuit opens: calls wait instead of going out, so an outage costs one probe per
 * cool-down instead of every step burning its retries. After the cool-down one call
 * goes out as a probe (half-open); it closes the circuit on success, or opens it again
 * with a doubled cool-down. The offline model is never breakered: it cannot have an
 * outage.
 *
 * Time comes from an injected clock, so tests drive it without waiting.
 */
import type { CircuitState, ProviderCircuitView } from "../protocol/rest/admin-views.ts";
import { describeWait } from "../core/retry-policy.ts";

export interface CircuitPolicy {
  /** transient failures in a row that open the circuit */
  failureThreshold: number;
  /** first wait before a probe; doubled after every failed probe, up to maxCoolDownMs */
  coolDownMs: number;
  maxCoolDownMs: number;
  /** the longest one run waits for a provider in all; then the run fails (transient) */
  maxWaitMs: number;
}

export const DEFAULT_CIRCUIT_POLICY: CircuitPolicy = {
  failureThreshold: 5,
  coolDownMs: 10_000,
  maxCoolDownMs: 120_000,
  maxWaitMs: 10 * 60_000,
};

export interface CircuitClock {
  now(): number;
  /** calls `fire` after `ms`; the returned function cancels it */
  setTimer(ms: number, fire: () => void): () => void;
}

export const systemCircuitClock: CircuitClock = {
  now: () => Date.now(),
  setTimer(ms, fire) {
    const timer = setTimeout(fire, ms);
    timer.unref?.();
    return () => clearTimeout(timer);
  },
};

/** What a circuit breaks: one model of one provider, called with the process's key for it. */
export interface CircuitTarget {
  provider: string;
  /** the full model id, `provider:model` */
  model: string;
}

/** The run waited as long as it may for a model whose circuit stayed open. */
export class ProviderUnavailableError extends Error {
  readonly code = "provider-unavailable";
  constructor(
    readonly target: CircuitTarget,
    /** from the run's first wait, not this call's: the time a person actually waited */
    readonly waitedMs: number,
    /** the provider's last answer (status and message), when it gave one */
    readonly lastFailure: string | null,
  ) {
    super(
      `${target.model} is unavailable: its circuit stayed open while the run waited ${describeWait(waitedMs)}` +
        (lastFailure ? `; last failure: ${lastFailure}` : ""),
    );
    this.name = "ProviderUnavailableError";
  }
}

/** Permission for one call; report how it went exactly once. */
export interface CallTicket {
  readonly target: CircuitTarget;
  readonly probe: boolean;
  /** the provider answered (a fatal 400 counts: the provider is up) */
  succeeded(): void;
  /** a transient failure (5xx, 429, connection): counts towards opening */
  failedTransiently(reason: string): void;
  /** no verdict (the call was cancelled): a probe lets the next caller probe */
  released(): void;
}

interface Circuit {
  target: CircuitTarget;
  state: CircuitState;
  failures: number;
  coolDownMs: number;
  nextProbeAt: number | null;
  probeInFlight: boolean;
  opened: number;
  lastFailure: string | null;
  lastFailureAt: number | null;
  waiters: Set<() => void>;
}

export class ProviderCircuits {
  private readonly circuits = new Map<string, Circuit>();
  private readonly policy: CircuitPolicy;
  private readonly clock: CircuitClock;

  constructor(options: { policy?: Partial<CircuitPolicy>; clock?: CircuitClock } = {}) {
    this.policy = { ...DEFAULT_CIRCUIT_POLICY, ...options.policy };
    this.clock = options.clock ?? systemCircuitClock;
  }

  get maxWaitMs(): number {
    return this.policy.maxWaitMs;
  }

  /** the breaker's clock, so callers measure deadlines on it */
  now(): number {
    return this.clock.now();
  }

  /**
   * Waits until a call to `target` may go out, then returns its ticket. `deadline`
   * (epoch ms) bounds the wait of the whole run, which began at `waitingSince`: past
   * it, ProviderUnavailableError. Rejects with the signal's reason when the run is cancelled.
   */
  async acquire(
    target: CircuitTarget,
    input: { signal: AbortSignal; deadline: number; waitingSince?: number; onWait?: (view: ProviderCircuitView) => void },
  ): Promise<CallTicket> {
    const circuit = this.circuit(target);
    const started = input.waitingSince ?? this.clock.now();
    let announced = false;
    for (;;) {
      input.signal.throwIfAborted();
      if (circuit.state === "closed") return this.ticket(circuit, false);
      const now = this.clock.now();
      if (circuit.state === "open" && !circuit.probeInFlight && circuit.nextProbeAt !== null && now >= circuit.nextProbeAt) {
        circuit.state = "half-open";
        circuit.probeInFlight = true;
        return this.ticket(circuit, true);
      }
      if (now >= input.deadline) throw new ProviderUnavailableError(target, now - started, circuit.lastFailure);
      if (!announced) {
        announced = true;
        input.onWait?.(this.view(circuit));
      }
      const wakeAt =
        circuit.state === "open" && circuit.nextProbeAt !== null ? Math.min(circuit.nextProbeAt, input.deadline) : input.deadline;
      await this.waitForChange(circuit, wakeAt - now, input.signal);
    }
  }

  /** The model's circuit is not closed: calls to it wait. */
  isOpen(target: CircuitTarget): boolean {
    return this.circuit(target).state !== "closed";
  }

  snapshot(): ProviderCircuitView[] {
    return [...this.circuits.values()].map((circuit) => this.view(circuit)).sort((a, b) => a.model.localeCompare(b.model));
  }

  private view(circuit: Circuit): ProviderCircuitView {
    return {
      provider: circuit.target.provider,
      model: circuit.target.model,
      state: circuit.state,
      consecutiveFailures: circuit.failures,
      nextProbeAt: circuit.state === "open" ? circuit.nextProbeAt : null,
      waiting: circuit.waiters.size,
      opened: circuit.opened,
      lastFailure: circuit.lastFailure,
      lastFailureAt: circuit.lastFailureAt,
    };
  }

  private circuit(target: CircuitTarget): Circuit {
    let circuit = this.circuits.get(target.model);
    if (!circuit) {
      circuit = {
        target: { provider: target.provider, model: target.model },
        state: "closed",
        failures: 0,
        coolDownMs: this.policy.coolDownMs,
        nextProbeAt: null,
        probeInFlight: false,
        opened: 0,
        lastFailure: null,
        lastFailureAt: null,
        waiters: new Set(),
      };
      this.circuits.set(target.model, circuit);
    }
    return circuit;
  }

  private ticket(circuit: Circuit, probe: boolean): CallTicket {
    let settled = false;
    const once = (verdict: () => void) => () => {
      if (settled) return;
      settled = true;
      verdict();
      this.notify(circuit);
    };
    return {
      target: circuit.target,
      probe,
      succeeded: once(() => {
        if (probe || circuit.state === "closed") {
          circuit.state = "closed";
          circuit.failures = 0;
          circuit.coolDownMs = this.policy.coolDownMs;
          circuit.nextProbeAt = null;
        }
        if (probe) circuit.probeInFlight = false;
      }),
      failedTransiently: (reason: string) =>
        once(() => {
          circuit.lastFailure = reason;
          circuit.lastFailureAt = this.clock.now();
          if (probe) {
            circuit.probeInFlight = false;
            circuit.coolDownMs = Math.min(circuit.coolDownMs * 2, this.policy.maxCoolDownMs);
            this.open(circuit);
            return;
          }
          if (circuit.state !== "closed") return; // a call admitted before the circuit opened: already counted
          circuit.failures += 1;
          if (circuit.failures >= this.policy.failureThreshold) this.open(circuit);
        })(),
      released: once(() => {
        if (!probe) return;
        // nobody learned anything: let the next waiter probe now
        circuit.probeInFlight = false;
        circuit.state = "open";
        circuit.nextProbeAt = this.clock.now();
      }),
    };
  }

  private open(circuit: Circuit): void {
    if (circuit.state !== "open") circuit.opened += 1;
    circuit.state = "open";
    circuit.nextProbeAt = this.clock.now() + circuit.coolDownMs;
  }

  private notify(circuit: Circuit): void {
    for (const wake of [...circuit.waiters]) wake();
  }

  private waitForChange(circuit: Circuit, ms: number, signal: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const cleanup = () => {
        circuit.waiters.delete(wake);
        cancelTimer();
        signal.removeEventListener("abort", onAbort);
      };
      const wake = () => {
        cleanup();
        resolve();
      };
      const onAbort = () => {
        cleanup();
        reject(signal.reason instanceof Error ? signal.reason : new Error("aborted"));
      };
      circuit.waiters.add(wake);
      const cancelTimer = this.clock.setTimer(Math.max(0, ms), wake);
      signal.addEventListener("abort", onAbort, { once: true });
    });
  }
}
