/**
 * Secret form answers inside one run. The resumed run gives the model the real
 * values (that is what the person answered for), and masks them in everything the
 * run lets out: streamed text, execution-log entries, the result (answer, summary,
 * failure reason) and the session it stores — so a later resume, the conversation,
 * the plan and the database only ever hold SECRET_MASK. A value the model rewrites
 * (spelled out, encoded) cannot be recognised; the tool description asks it not to.
 */
import { SECRET_MASK } from "../core/form-schema.ts";
import type { RunSink } from "../ports/executor.ts";

export class SecretRedactor {
  /** longest first, so a secret that contains another is masked whole */
  private readonly secrets: string[];

  constructor(secrets: readonly string[]) {
    this.secrets = [...new Set(secrets.filter((secret) => secret !== ""))].sort((a, b) => b.length - a.length);
  }

  get active(): boolean {
    return this.secrets.length > 0;
  }

  redact(text: string): string {
    let result = text;
    for (const secret of this.secrets) result = result.replaceAll(secret, SECRET_MASK);
    return result;
  }

  /** Every string in a JSON-like value, masked (a copy; the input is not changed). */
  redactDeep<T>(value: T): T {
    if (!this.active) return value;
    return this.walk(value) as T;
  }

  private walk(value: unknown): unknown {
    if (typeof value === "string") return this.redact(value);
    if (Array.isArray(value)) return value.map((item) => this.walk(item));
    if (value !== null && typeof value === "object" && Object.getPrototypeOf(value) === Object.prototype) {
      return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, this.walk(item)]));
    }
    return value;
  }

  /** Length of the longest end of `text` that could be the start of a secret. */
  private possibleStart(text: string): number {
    let longest = 0;
    for (const secret of this.secrets) {
      for (let length = Math.min(secret.length - 1, text.length); length > longest; length--) {
        if (text.endsWith(secret.slice(0, length))) {
          longest = length;
          break;
        }
      }
    }
    return longest;
  }

  /**
   * A sink that masks what passes through. Streamed text is passed on except for an
   * end that could be the start of a secret, which is held until the next delta
   * shows what it is (so a secret split across deltas is still masked) or flush()
   * at the end of the run. Held text of a model call that is being retried is
   * dropped, as the live view drops what it showed of that call.
   */
  wrapSink(sink: RunSink): RunSink & { flush(): void } {
    if (!this.active) return { ...sink, flush() {} };
    let held = "";
    return {
      textDelta: (delta) => {
        const text = this.redact(held + delta);
        const keep = this.possibleStart(text);
        held = text.slice(text.length - keep);
        if (text.length > keep) sink.textDelta(text.slice(0, text.length - keep));
      },
      log: (entry) => {
        const data = entry.data as { discardPartialText?: unknown } | undefined;
        if (data?.discardPartialText === true) held = "";
        sink.log(this.redactDeep(entry));
      },
      status: (text) => sink.status?.(text === null ? null : this.redact(text)),
      resetText: (text) => {
        held = "";
        sink.resetText?.(this.redact(text));
      },
      flush: () => {
        if (held !== "") sink.textDelta(held);
        held = "";
      },
    };
  }
}
