/**
 * A scripted agent behaviour driven by a directive in the step input, shared by the
 * executor tests and the worker processes they spawn:
 * `sleep=MS` (or `sleep=MIN-MAX`, random), `hold_on=INSTANCE` (on the process with that
 * BATON_INSTANCE_ID the run lasts until it is stopped: surely live when a test stops that
 * process), `fail=transient|fatal`, `fail_attempts=N`, `block=1`.
 */
import { NO_USAGE, ok, sleep, type Script } from "./scripted-runner.ts";

/** "until stopped": longer than any test */
const HOLD_MS = 60 * 60 * 1000;

export function parseTestDirective(input: string) {
  const range = /sleep=(\d+)(?:-(\d+))?/.exec(input);
  const min = Number(range?.[1] ?? 0);
  const max = Number(range?.[2] ?? min);
  const fail = /fail=(transient|fatal)/.exec(input)?.[1] as "transient" | "fatal" | undefined;
  const failAttempts = Number(/fail_attempts=(\d+)/.exec(input)?.[1] ?? Infinity);
  const holdOn = /hold_on=(\S+)/.exec(input)?.[1] ?? null;
  return { sleepMin: min, sleepMax: max, holdOn, fail, failAttempts, block: /block=1/.test(input) };
}

export const directiveScript: Script = async (request, { attempt }) => {
  const d = parseTestDirective(request.input);
  const held = d.holdOn !== null && d.holdOn === process.env.BATON_INSTANCE_ID;
  const sleepMs = held ? HOLD_MS : d.sleepMin + Math.random() * (d.sleepMax - d.sleepMin);
  await sleep(sleepMs, request.signal);
  if (request.purpose.kind === "commander-decision") {
    const wanted = /decision=(retry|skip|abort)/.exec(request.purpose.failedStep.failureReason)?.[1] ?? "skip";
    return ok(`Decision: ${wanted}`, { decision: { kind: wanted } });
  }
  if (d.fail && attempt <= d.failAttempts) {
    return { kind: "failed", transient: d.fail === "transient", reason: `${d.fail} failure`, usage: NO_USAGE };
  }
  if (d.block && !request.resume) {
    return {
      kind: "blocked",
      text: "I need a name",
      form: { title: "Which name?", fields: [{ name: "name", label: "Name", type: "text", required: true }] },
      usage: NO_USAGE,
    };
  }
  const answer = request.resume ? ` with ${request.resume.answer}` : "";
  return ok(`summary of ${request.step?.stepIndex ?? "mention"}${answer}`);
};
