/**
 * `npm run bench:hostile`: posts hostile bodies to the real route handlers (in-process,
 * embedded database) while `monitorEventLoopDelay` watches the event loop, and prints
 * how long each refusal took and how long the loop was blocked (p99 and max). The
 * target is no request blocking the loop for more than 50 ms. Figures, not assertions.
 */
import os from "node:os";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { lateness } from "../server/ops/event-loop-delay.ts";
import { createRouteHarness, signDelivery, TEST_API_TOKEN } from "../server/http/testing/route-harness.ts";
import { validatePlan } from "../server/core/validate-plan.ts";
import { dispatchV1 } from "../server/api-v1/serve-v1.ts";
import * as conversations from "../app/api/conversations/route.ts";
import * as messages from "../app/api/conversations/[conversationId]/messages/route.ts";

const ROUNDS = Number(process.env.BATON_BENCH_ROUNDS ?? 5);

const harness = await createRouteHarness();
const conversationId = harness.fixture.conversationId;
type Handler = (request: Request, context: { params: Promise<Record<string, string>> }) => Promise<Response>;

/** A body that streams forever in 64 KB chunks: only a cap stops reading it. */
function endless(): ReadableStream<Uint8Array> {
  const chunk = new Uint8Array(64 * 1024).fill(0x20);
  return new ReadableStream({ pull: (controller) => controller.enqueue(chunk) });
}

function request(path: string, body: () => BodyInit, headers: Record<string, string>): () => Request {
  return () =>
    new Request(`http://baton.test${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: body(),
      // @ts-expect-error undici needs duplex for a streamed body; lib.dom does not know it
      duplex: "half",
    });
}

const steps = (count: number, extra: (index: number) => Record<string, unknown> = () => ({})) =>
  Array.from({ length: count }, (_, i) => ({
    index: i + 1,
    title: `Step ${i + 1}`,
    assignee: "writer",
    input: `Research part ${i + 1} of {{request}}`,
    wait_for: i === 0 ? [] : [i],
    ...extra(i + 1),
  }));
// the shape from the issue (~727 KB): under the body cap, so the plan check is what refuses it
const hugePlan = JSON.stringify({
  title: "10,000 steps",
  steps: Array.from({ length: 10_000 }, (_, i) => ({
    index: i + 1,
    title: `Step ${i + 1}`,
    assignee: "writer",
    input: `Do part ${i + 1}`,
  })),
});
const reactionsPath = `/api/v1/conversations/${conversationId}/reactions`;
const token = { authorization: `Bearer ${TEST_API_TOKEN}` };
const session = { cookie: harness.cookie };
const deep = `{"source":"ci","target":{"agent":"writer"},"payload":${"[".repeat(400_000)}${"]".repeat(400_000)}}`;
const nulAtTheEnd = JSON.stringify({ title: "x".repeat(900_000) + "\u0000" });

const scenarios: { name: string; handler: Handler; params: Record<string, string>; make: () => Request; expect: number }[] = [
  {
    name: `10,000-step plan (${Math.round(hugePlan.length / 1024)} KB)`,
    handler: dispatchV1,
    params: { id: conversationId },
    make: request(`/api/v1/conversations/${conversationId}/plans`, () => hugePlan, token),
    expect: 422,
  },
  {
    name: "JSON nested 400,000 deep (800 KB)",
    handler: dispatchV1,
    params: { id: conversationId },
    make: request(reactionsPath, () => deep, token),
    expect: 400,
  },
  {
    name: "900 KB title ending in NUL",
    handler: conversations.POST,
    params: {},
    make: request("/api/conversations", () => nulAtTheEnd, session),
    expect: 400,
  },
  {
    name: "endless streamed body, signed webhook",
    handler: dispatchV1,
    params: { id: conversationId },
    make: request(reactionsPath, endless, {
      "x-baton-timestamp": String(Math.floor(Date.now() / 1000)),
      "x-baton-delivery": "bench",
      "x-baton-signature": signDelivery({ timestamp: 0, delivery: "x", path: "/", body: "" }),
    }),
    expect: 413,
  },
  {
    name: "endless streamed body, anonymous",
    handler: messages.POST as Handler,
    params: { conversationId },
    make: request(`/api/conversations/${conversationId}/messages`, endless, {}),
    expect: 413,
  },
  {
    name: "declared 100 MB body, bearer token",
    handler: dispatchV1,
    params: { id: conversationId },
    make: request(`/api/v1/conversations/${conversationId}/plans`, endless, { ...token, "content-length": String(100 * 1024 * 1024) }),
    expect: 413,
  },
];

const RESOLUTION_MS = 1;
const histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
/** how late the histogram's ticks came (p99, max), in ms: its interval taken out (server/ops/event-loop-delay.ts) */
const delay = () => {
  const figures = lateness(histogram, RESOLUTION_MS);
  return { p99: figures.p99 * 1000, max: figures.max * 1000 };
};
const ms = (value: number) => value.toFixed(1);
console.log(`Hostile bodies against the route handlers (embedded database, ${ROUNDS} rounds each; loop delay from monitorEventLoopDelay)`);
console.log(`machine load average ${os.loadavg()[0].toFixed(1)} on ${os.cpus().length} cores (a busy machine inflates every figure)\n`);

// the noise floor: the loop with nothing to do but the histogram's own timer
histogram.enable();
await new Promise((resolve) => setTimeout(resolve, 500));
histogram.disable();
const idle = delay();
console.log(
  `${"idle (no requests), 500 ms".padEnd(40)}          loop delay p99 ${ms(idle.p99).padStart(5)} ms, max ${ms(idle.max).padStart(5)} ms`,
);
let worst = 0;
for (const scenario of scenarios) {
  const times: number[] = [];
  let cpuMicros = 0;
  histogram.reset();
  histogram.enable();
  for (let round = 0; round < ROUNDS; round++) {
    const started = performance.now();
    const cpu = process.cpuUsage();
    const response = await scenario.handler(scenario.make(), { params: Promise.resolve(scenario.params) });
    const used = process.cpuUsage(cpu);
    cpuMicros += used.user + used.system;
    times.push(performance.now() - started);
    if (response.status !== scenario.expect)
      throw new Error(`${scenario.name}: expected ${scenario.expect}, got ${response.status} ${await response.text()}`);
    await response.body?.cancel();
    await new Promise((resolve) => setTimeout(resolve, 20)); // let the histogram sample between requests
  }
  histogram.disable();
  times.sort((a, b) => a - b);
  const loop = delay();
  worst = Math.max(worst, loop.max);
  console.log(
    `${scenario.name.padEnd(40)} → ${scenario.expect}  median ${times[Math.floor(times.length / 2)].toFixed(1).padStart(6)} ms (CPU ${(cpuMicros / ROUNDS / 1000).toFixed(1).padStart(5)} ms)   loop delay p99 ${ms(loop.p99).padStart(5)} ms, max ${ms(loop.max).padStart(5)} ms`,
  );
}

// the heaviest plan the limit allows: 200 steps, each waiting for every earlier step and reading the first
const dense = {
  title: "dense",
  steps: steps(200, (index) => ({
    wait_for: Array.from({ length: index - 1 }, (_, i) => i + 1),
    input: index > 2 ? "{{step_1.output_summary}} {{step_2.output_summary}}" : "x",
  })),
};
const limits = { maxSteps: 200, maxInputChars: 20_000, defaultMaxParallel: 4, defaultMaxRetries: 3 };
/** wall and CPU ms per call, the median of 10 after a warm-up */
const timed = (run: () => unknown) => {
  run();
  const walls: number[] = [];
  const cpus: number[] = [];
  for (let i = 0; i < 10; i++) {
    const started = performance.now();
    const cpu = process.cpuUsage();
    run();
    const used = process.cpuUsage(cpu);
    walls.push(performance.now() - started);
    cpus.push((used.user + used.system) / 1000);
  }
  const median = (values: number[]) => values.sort((a, b) => a - b)[5].toFixed(2);
  return `${median(walls)} ms (CPU ${median(cpus)} ms)`;
};
const edges = dense.steps.reduce((n, step) => n + step.wait_for.length, 0);
console.log(
  `\nvalidatePlan, 200 steps each waiting for all earlier ones (${edges} edges): ${timed(() => validatePlan({ raw: dense, assignees: new Set(["writer"]), limits }))}`,
);
const chainPlan = { title: "chain", steps: steps(200, (index) => ({ input: index > 1 ? "{{step_1.output_summary}}" : "x" })) };
console.log(
  `validatePlan, 200-step chain, every step reading step 1: ${timed(() => validatePlan({ raw: chainPlan, assignees: new Set(["writer"]), limits }))}`,
);
const hugeParsed = JSON.parse(hugePlan);
console.log(
  `validatePlan, the 10,000-step plan (refused on its size): ${timed(() => {
    try {
      validatePlan({ raw: hugeParsed, assignees: new Set(["writer"]), limits });
    } catch {
      // refused, as expected
    }
  })}`,
);
console.log(`\nworst event-loop delay while hostile bodies were posted: ${ms(worst)} ms (target: under 50 ms)`);
await harness.close();
process.exit(0);
