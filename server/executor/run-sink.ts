/**
 * What a run streams while it runs (its RunSink): live text and status lines go to the
 * conversation's viewers as they come, and log lines are kept for its result. A run
 * started early (run-worker.ts, startEarly) shows nothing until its unit committed and
 * claimed it here: its lines wait for `confirmed`, and are dropped if it is not. The
 * text streamed so far is kept, so a run a member stops leaves what it had written.
 */
import type { EventPublisher, RunSink } from "../ports/executor.ts";
import type { RunLogEntry } from "./run-lifecycle.ts";

export function liveRunSink(input: {
  publisher: EventPublisher;
  conversationId: string;
  runId: string;
  /** a run started early: whether its claim came to this process; none: shown at once */
  confirmed?: Promise<boolean>;
  /** where the run's log lines are collected */
  logs: RunLogEntry[];
}): RunSink & { text(): string } {
  const { publisher, conversationId, runId, confirmed, logs } = input;
  // what the run has streamed so far, as its viewers see it: a stopped run's text is posted
  let streamed = "";
  let visible = !confirmed;
  void confirmed?.then((yes) => (visible = yes));
  const shown = (show: () => void) => {
    if (visible) show();
    else void confirmed?.then((yes) => yes && show());
  };
  return {
    textDelta: (delta) => {
      streamed += delta;
      shown(() => publisher.runDelta(conversationId, runId, delta));
    },
    log: (entry) => logs.push(entry),
    status: (text) => shown(() => publisher.runStatus?.(conversationId, runId, text)),
    resetText: (text) => {
      streamed = text;
      shown(() => publisher.runDelta(conversationId, runId, text, { reset: true }));
    },
    text: () => streamed,
  };
}
