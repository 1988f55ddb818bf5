/**
 * The hot path's writes, sent as ONE call at the end of the transaction: every row
 * goes into one JSON document that `baton_write_units` (a migration: *_database_functions)
 * applies table by table, appending the conversation's events last and returning
 * their seq. A step's finish-and-dispatch then costs four round trips (begin, enter,
 * write, commit) instead of one per row, and one parameter instead of ~100.
 *
 * Rule that keeps this correct: nothing in the same transaction may read a row the
 * batch has not written yet. Full-row updates are keyed, so the last one wins.
 */
import type { SqlRunner } from "../../db/sql-runner.ts";
import type { RunStatus } from "../../generated/prisma/enums.ts";
import type { PendingEvent } from "./event-log.ts";
import type { CommitNotice } from "../../ports/executor.ts";
import type { FinishedRunRow, MessageRow, NewPlanRow, NewStepRow, PlanRow, RunRow, StepEventRow, StepRow } from "./tables.ts";

/**
 * What an optimistic unit decided from; the write is refused if any of it no longer
 * holds: each plan's version (null: the unit creates the plan) and each run's status.
 * A refusal is a database error that `isWriteConflict` (db/database-errors.ts) knows.
 */
export interface WriteExpectation {
  lockKey: string;
  plans: { planId: string; version: number | null }[];
  runs: { runId: string; runStatus: RunStatus | null }[];
}

/** Who may claim queued runs in the same statement (a worker with room), and its limits. */
export interface ClaimRequest {
  owner: string;
  leaseMs: number;
  max: number;
  modelLimits: Record<string, number>;
}

/** A run claimed for this process: it is `running` and leased to it. */
export interface ClaimedRun {
  id: string;
  conversationId: string;
  startedAt: string;
}

export interface FlushResult {
  /** the conversation's new lastSeq (the events got lastSeq - n + 1 … lastSeq), or null without events */
  lastSeq: number | null;
  claimed: ClaimedRun[];
  /** runs are still queued in the pools this unit touched */
  waiting: boolean;
}

type Write =
  | { kind: "newPlan"; row: NewPlanRow }
  | { kind: "newSteps"; row: NewStepRow[] }
  | { kind: "message"; row: MessageRow }
  | { kind: "run"; row: RunRow }
  | { kind: "finishedRun"; row: FinishedRunRow }
  | { kind: "cancelledRun"; row: { id: string; endedAt: Date } }
  | { kind: "runPlan"; row: { id: string; planId: string } }
  | { kind: "closedForm"; row: { id: string } }
  | { kind: "plan"; row: PlanRow }
  | { kind: "step"; row: StepRow }
  | { kind: "stepEvents"; row: StepEventRow[] };

/** The writes the executor queues; each is one row (or rows) of one table. */
export const sqlWrites = {
  /** a plan and its steps are inserted before anything else, so every row may refer to them */
  insertPlan: (row: NewPlanRow): Write => ({ kind: "newPlan", row }),
  insertSteps: (rows: NewStepRow[]): Write => ({ kind: "newSteps", row: rows }),
  insertMessage: (row: MessageRow): Write => ({ kind: "message", row }),
  insertRun: (row: RunRow): Write => ({ kind: "run", row }),
  /** records how a run ended; a run that is no longer running is left as it is */
  finishRun: (row: FinishedRunRow): Write => ({ kind: "finishedRun", row }),
  cancelRun: (row: { id: string; endedAt: Date }): Write => ({ kind: "cancelledRun", row }),
  /** the plan a run belongs to (the commander's planning run, once its plan exists) */
  setRunPlan: (row: { id: string; planId: string }): Write => ({ kind: "runPlan", row }),
  closeForm: (row: { id: string }): Write => ({ kind: "closedForm", row }),
  updatePlan: (row: PlanRow): Write => ({ kind: "plan", row }),
  updateStep: (row: StepRow): Write => ({ kind: "step", row }),
  insertStepEvents: (rows: StepEventRow[]): Write => ({ kind: "stepEvents", row: rows }),
};

export class WriteBatch {
  private readonly keyed = new Map<string, Write>();
  private readonly appended: Write[] = [];

  /** A write that replaces any earlier write with the same key (full-row updates). */
  set(key: string, write: Write): void {
    this.keyed.delete(key);
    this.keyed.set(key, write);
  }

  add(write: Write): void {
    this.appended.push(write);
  }

  /** the batch ends or cancels runs: their pools have a slot to hand on */
  get freesSlots(): boolean {
    return this.appended.some((write) => write.kind === "finishedRun" || write.kind === "cancelledRun");
  }

  /** the runs whose end the batch records: once it commits, they hold no slot of their process or pool */
  get endingRunIds(): string[] {
    return this.appended.flatMap((write) => (write.kind === "finishedRun" ? [write.row.id] : []));
  }

  get isEmpty(): boolean {
    return this.keyed.size === 0 && this.appended.length === 0;
  }

  /**
   * Applies every write, claims queued runs of the pools it touched (with `claim`) and
   * appends the events in order, in one statement.
   */
  async flush(
    sql: SqlRunner,
    input: {
      conversationId: string;
      events: PendingEvent[];
      now: Date;
      expect?: WriteExpectation;
      claim?: ClaimRequest | null;
      /** sent at commit with the events' seqs (only when there are events) */
      notice?: CommitNotice | null;
    },
  ): Promise<FlushResult> {
    // appended writes (inserts among them) come first: a keyed step update may fold into an insert
    const writes = [...this.appended, ...this.keyed.values()];
    const newSteps = new Map<string, NewStepRow>();
    this.appended.length = 0;
    this.keyed.clear();
    if (writes.length === 0 && input.events.length === 0 && !input.expect) return { lastSeq: null, claimed: [], waiting: false };
    const doc = {
      conversationId: input.conversationId,
      now: input.now,
      newPlans: [] as NewPlanRow[],
      newSteps: [] as NewStepRow[],
      messages: [] as MessageRow[],
      runs: [] as RunRow[],
      finishedRuns: [] as FinishedRunRow[],
      cancelledRuns: [] as { id: string; endedAt: Date }[],
      runPlans: [] as { id: string; planId: string }[],
      closedForms: [] as string[],
      plans: [] as (PlanRow & { setStatus: boolean })[],
      steps: [] as StepRow[],
      stepEvents: [] as StepEventRow[],
      events: input.events.map((event) => ({ type: event.type, payload: event.payload })),
      ...(input.expect ? { expect: input.expect } : {}),
      ...(input.claim ? { claim: input.claim } : {}),
      ...(input.notice ? { notice: input.notice } : {}),
    };
    for (const write of writes) {
      switch (write.kind) {
        case "newPlan":
          doc.newPlans.push(write.row);
          break;
        case "newSteps":
          for (const row of write.row) {
            const copy = { ...row }; // an update folded in below must not change the caller's row
            newSteps.set(row.id, copy);
            doc.newSteps.push(copy);
          }
          break;
        case "message":
          doc.messages.push(write.row);
          break;
        case "run":
          doc.runs.push(write.row);
          break;
        case "finishedRun":
          doc.finishedRuns.push(write.row);
          break;
        case "cancelledRun":
          doc.cancelledRuns.push(write.row);
          break;
        case "runPlan":
          doc.runPlans.push(write.row);
          break;
        case "closedForm":
          doc.closedForms.push(write.row.id);
          break;
        case "plan":
          doc.plans.push({ ...write.row, setStatus: write.row.status !== undefined });
          break;
        case "step": {
          // a step this batch inserts takes its update into the insert: one row written once
          const inserted = newSteps.get(write.row.id);
          if (inserted) Object.assign(inserted, write.row);
          else doc.steps.push(write.row);
          break;
        }
        case "stepEvents":
          doc.stepEvents.push(...write.row);
          break;
        default:
          throw new Error(`unknown write ${String(write satisfies never)}`);
      }
    }
    const rows = await sql<{ result: { lastSeq: number | null; claimed: ClaimedRun[]; waiting: boolean } }>(
      `SELECT baton_write_units($1::jsonb) AS "result"`,
      [JSON.stringify(doc)],
    );
    const result = rows[0].result;
    return {
      lastSeq: result.lastSeq === null || result.lastSeq === undefined ? null : Number(result.lastSeq),
      claimed: result.claimed ?? [],
      waiting: Boolean(result.waiting),
    };
  }
}
