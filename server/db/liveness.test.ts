import { describe, expect, it } from "vitest";
import type pg from "pg";
import { takingTurns } from "./liveness.ts";

/** A connection that answers after `delayMs` and records whether two queries ever overlapped. */
function recordingConnection(delayMs: number, failing: Set<string> = new Set()) {
  let running = 0;
  const record = { overlapped: false, order: [] as string[] };
  const connection = {
    async query(text: string) {
      running++;
      if (running > 1) record.overlapped = true;
      record.order.push(text);
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      running--;
      if (failing.has(text)) throw new Error(`refused: ${text}`);
      return { rows: [{ text }] } as unknown as pg.QueryResult;
    },
  } as Pick<pg.Client, "query">;
  return { connection, record };
}

describe("takingTurns", () => {
  it("sends one query at a time, in the order asked, each answered with its own result", async () => {
    const { connection, record } = recordingConnection(5);
    const turn = takingTurns(connection);
    const answers = await Promise.all(["a", "b", "c", "d"].map((text) => turn<{ text: string }>(text)));
    expect(record.overlapped).toBe(false);
    expect(record.order).toEqual(["a", "b", "c", "d"]);
    expect(answers.map((answer) => answer.rows[0].text)).toEqual(["a", "b", "c", "d"]);
  });

  it("a failed query rejects its caller only; the next one still runs", async () => {
    const { connection, record } = recordingConnection(2, new Set(["b"]));
    const turn = takingTurns(connection);
    const settled = await Promise.allSettled(["a", "b", "c"].map((text) => turn(text)));
    expect(settled.map((s) => s.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect(record.order).toEqual(["a", "b", "c"]);
    expect(record.overlapped).toBe(false);
  });
});
