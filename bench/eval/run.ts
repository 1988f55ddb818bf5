/**
 * `npm run eval`: the evaluation requests through the real executor and agent runtime.
 * With ANTHROPIC_API_KEY or OPENAI_API_KEY set they go to that provider (model:
 * BATON_EVAL_MODEL, `provider:model`); without, to the fake providers, both wire formats.
 * Then the "compare 4 × 3" caching figures, always through the fakes.
 */
import "../quiet-logs.ts";
import { startFakeModelServer } from "../../server/agents/testing/fake-model-server.ts";
import { formatRecord, runEval, totals, usd, type EvalRecord } from "./harness.ts";
import { EVAL_REQUESTS } from "./requests.ts";
import { fakeTarget, realTarget } from "./targets.ts";
import { formatCaching, measureCaching } from "./caching.ts";

(globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;

function report(label: string, records: EvalRecord[]) {
  console.log(`\n=== ${label}: ${records.length} requests\n`);
  for (const record of records) console.log(formatRecord(record) + "\n");
  const sum = totals(records);
  const ended = records.filter((record) => record.outcome !== "timed out" && record.outcome !== "no answer").length;
  console.log(
    `total: ${ended}/${records.length} ended · calls ${sum.calls} · tokens ${sum.tokensIn} in / ${sum.tokensOut} out · ` +
      `cache read ${sum.cacheReadTokens} · cost ${usd(sum.cost)}`,
  );
}

const real = realTarget(process.env);
if (real) {
  report(real.label, await runEval(real, EVAL_REQUESTS));
} else {
  const server = await startFakeModelServer();
  try {
    for (const format of ["anthropic", "openai"] as const) {
      const target = fakeTarget(server, format, true);
      report(target.label, await runEval(target, EVAL_REQUESTS));
    }
  } finally {
    await server.close();
  }
}
console.log('\n=== caching: "compare 4 × 3"\n');
console.log(formatCaching(await measureCaching()));
