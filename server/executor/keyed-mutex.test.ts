import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { KeyedMutex } from "./keyed-mutex.ts";

/** Lets every settled promise's reactions run. */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A key's turns, each held open until the test lets it finish, and what ran in each. */
function harness(max: number) {
  const mutex = new KeyedMutex();
  const turns: { key: string; items: string[] }[] = [];
  const running = new Map<string, () => void>();
  let overlapping = false;
  const turn = (key: string, items: string[]) =>
    new Promise<void>((resolve) => {
      if (running.has(key)) overlapping = true;
      turns.push({ key, items });
      running.set(key, () => {
        running.delete(key);
        resolve();
      });
    });
  return {
    turns,
    running,
    get overlapping() {
      return overlapping;
    },
    run: (key: string, id: string) => void mutex.run(key, () => turn(key, [id])),
    join: (key: string, id: string) => mutex.join(key, id, (items) => turn(key, items), max),
  };
}

describe("KeyedMutex", () => {
  it("runs a key's work one turn at a time, in the order it was queued", async () => {
    const mutex = new KeyedMutex();
    const order: number[] = [];
    await Promise.all(
      [3, 1, 2].map((delay, i) =>
        mutex.run("k", async () => {
          await new Promise((resolve) => setTimeout(resolve, delay));
          order.push(i);
        }),
      ),
    );
    expect(order).toEqual([0, 1, 2]);
  });

  it("hands items that queue behind a busy key to one turn, up to the batch's size", async () => {
    const h = harness(3);
    h.join("k", "a"); // the key is free: a turn of its own
    await settle();
    for (const id of ["b", "c", "d", "e"]) h.join("k", id);
    h.running.get("k")!();
    await settle();
    h.running.get("k")!();
    await settle();
    h.running.get("k")!();
    await settle();
    expect(h.turns.map((turn) => turn.items)).toEqual([["a"], ["b", "c", "d"], ["e"]]);
  });

  it("never lets an item overtake work queued before it", async () => {
    const h = harness(10);
    h.run("k", "busy");
    h.join("k", "a");
    h.run("k", "other");
    h.join("k", "b"); // after "other": a batch of its own, not a's
    for (let i = 0; i < 4; i++) {
      await settle();
      h.running.get("k")?.();
    }
    expect(h.turns.map((turn) => turn.items)).toEqual([["busy"], ["a"], ["other"], ["b"]]);
  });

  it("keeps arrival order, one turn per key at a time, and batches of consecutive items only (property)", async () => {
    const action = fc.oneof(
      fc.record({ kind: fc.constant("run" as const), key: fc.constantFrom("k1", "k2") }),
      fc.record({ kind: fc.constant("join" as const), key: fc.constantFrom("k1", "k2") }),
      fc.record({ kind: fc.constant("finish" as const), key: fc.constantFrom("k1", "k2") }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(action, { maxLength: 40 }), fc.integer({ min: 1, max: 4 }), async (actions, max) => {
        const h = harness(max);
        const arrived = new Map<string, { id: string; kind: "run" | "join" }[]>();
        for (const [n, step] of actions.entries()) {
          const id = `${step.kind}${n}`;
          if (step.kind === "finish") h.running.get(step.key)?.();
          else {
            h[step.kind](step.key, id);
            arrived.set(step.key, [...(arrived.get(step.key) ?? []), { id, kind: step.kind }]);
          }
          await settle();
        }
        // let everything queued finish
        for (let guard = 0; h.running.size > 0 && guard < 200; guard++) {
          for (const finish of [...h.running.values()]) finish();
          await settle();
        }
        expect(h.overlapping).toBe(false);
        for (const [key, items] of arrived) {
          const turns = h.turns.filter((turn) => turn.key === key);
          // every item once, in the order it arrived
          expect(turns.flatMap((turn) => turn.items)).toEqual(items.map((item) => item.id));
          for (const turn of turns) {
            expect(turn.items.length).toBeLessThanOrEqual(Math.max(1, max));
            // a turn of several is items that joined, never a `run`'s work
            if (turn.items.length > 1) expect(turn.items.every((id) => id.startsWith("join"))).toBe(true);
          }
        }
      }),
      { numRuns: 200 },
    );
  });
});
