import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SECRET_MASK } from "../core/form-schema.ts";
import { SecretRedactor } from "./secrets.ts";
import { recordingSink } from "./testing/agent-fixture.ts";

describe("SecretRedactor", () => {
  it("masks secrets in text and in every string of a nested value", () => {
    const redactor = new SecretRedactor(["tok-123", "tok-123-long", ""]);
    expect(redactor.redact("a tok-123-long and tok-123")).toBe(`a ${SECRET_MASK} and ${SECRET_MASK}`);
    const value = { kind: "ok", list: ["x tok-123"], nested: { summary: "tok-123!" }, usage: { tokensIn: 3 } };
    expect(redactor.redactDeep(value)).toEqual({
      kind: "ok",
      list: [`x ${SECRET_MASK}`],
      nested: { summary: `${SECRET_MASK}!` },
      usage: { tokensIn: 3 },
    });
    expect(value.nested.summary).toBe("tok-123!");
  });

  it("without secrets it changes nothing and holds nothing back", () => {
    const sink = recordingSink();
    const wrapped = new SecretRedactor([]).wrapSink(sink);
    wrapped.textDelta("hello");
    expect(sink.deltas).toEqual(["hello"]);
  });

  it("masks a secret split across streamed deltas and in log entries; drops held text of a retried call", () => {
    const sink = recordingSink();
    const wrapped = new SecretRedactor(["hunter2-xyz"]).wrapSink(sink);
    for (const delta of ["pass: hun", "ter2", "-x", "yz done "]) wrapped.textDelta(delta);
    wrapped.log({ phase: "tool-call", message: "finish", data: { args: { summary: "used hunter2-xyz" } } });
    wrapped.textDelta("tail hunter");
    wrapped.log({ phase: "retry", message: "retry", data: { discardPartialText: true } });
    wrapped.textDelta("again");
    wrapped.flush();
    expect(sink.text()).toBe(`pass: ${SECRET_MASK} done tail again`);
    expect(sink.logs[0]).toEqual({ phase: "tool-call", message: "finish", data: { args: { summary: `used ${SECRET_MASK}` } } });
  });

  it("however the text is cut into deltas, the secret never passes and the text is otherwise intact", () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1, maxLength: 12 }),
        fc.array(fc.oneof(fc.string({ maxLength: 6 }), fc.constant("SECRET")), { maxLength: 10 }),
        fc.array(fc.nat({ max: 40 }), { maxLength: 8 }),
        (secret, parts, cuts) => {
          fc.pre(!SECRET_MASK.includes(secret) && !secret.includes(SECRET_MASK[0]));
          const text = parts.map((part) => (part === "SECRET" ? secret : part)).join("");
          const sink = recordingSink();
          const wrapped = new SecretRedactor([secret]).wrapSink(sink);
          const points = [...new Set(cuts.map((cut) => cut % (text.length + 1)))].sort((a, b) => a - b);
          let from = 0;
          for (const point of [...points, text.length]) {
            wrapped.textDelta(text.slice(from, point));
            from = point;
          }
          wrapped.flush();
          expect(sink.text()).not.toContain(secret);
          expect(sink.text()).toBe(new SecretRedactor([secret]).redact(text));
        },
      ),
      { numRuns: 300 },
    );
  });
});
