/**
 * The "compare 4 × 3" request on both fake providers, with prompt caching and without:
 * calls, tokens, the cached share of input tokens and the cost at list prices.
 */
import { startFakeModelServer, type WireFormat } from "../../server/agents/testing/fake-model-server.ts";
import { runEval, percent, usd, type EvalRecord } from "./harness.ts";
import { COMPARE_4X3 } from "./requests.ts";
import { fakeTarget, FAKE_MODELS } from "./targets.ts";

export interface CachingFigure {
  format: WireFormat;
  modelId: string;
  /** caching on, the first time: nothing cached yet (what it writes, Anthropic bills a quarter more) */
  cold: EvalRecord;
  /** caching on, the same request again within the cache's lifetime */
  warm: EvalRecord;
  /** caching off: the fake reports no cached tokens */
  uncached: EvalRecord;
}

export async function measureCaching(formats: readonly WireFormat[] = ["anthropic", "openai"]): Promise<CachingFigure[]> {
  const server = await startFakeModelServer();
  try {
    const figures: CachingFigure[] = [];
    for (const format of formats) {
      const [cold, warm] = await runEval(fakeTarget(server, format, true), [COMPARE_4X3, COMPARE_4X3]);
      const [uncached] = await runEval(fakeTarget(server, format, false), [COMPARE_4X3]);
      figures.push({ format, modelId: FAKE_MODELS[format], cold, warm, uncached });
    }
    return figures;
  } finally {
    await server.close();
  }
}

export function formatCaching(figures: CachingFigure[]): string {
  const lines = [
    `"${COMPARE_4X3.text}"`,
    "through the fake providers (offline model's answers, usage ≈ request chars / 4, prompt caching simulated);",
    "cold = caching on, first request on an empty cache; warm = the same request again within the cache's lifetime;",
    "without caching = the fake reports no cached tokens, so all input is billed at the plain input price:",
  ];
  for (const { format, modelId, cold, warm, uncached } of figures) {
    for (const [label, record] of [
      ["caching, cold  ", cold],
      ["caching, warm  ", warm],
      ["without caching", uncached],
    ] as const) {
      lines.push(
        `  ${format.padEnd(9)} ${modelId.padEnd(28)} ${label}  calls ${record.calls}  in ${record.tokensIn}  out ${record.tokensOut}  ` +
          `cache read ${record.cacheReadTokens} / write ${record.cacheWriteTokens}  cached ${percent(record.cachedShare)}  cost ${usd(record.cost)}  (${record.outcome})`,
      );
    }
    const saved = (record: EvalRecord) => (uncached.cost > 0 ? 1 - record.cost / uncached.cost : 0);
    lines.push(`  ${format.padEnd(9)} caching saves ${percent(saved(warm))} of the request's cost warm, ${percent(saved(cold))} cold`);
  }
  return lines.join("\n");
}
