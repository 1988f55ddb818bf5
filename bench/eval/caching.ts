/**
 * The "compare 4 × 3" request on both fake providers, with prompt caching and without:
 * calls, tokens, the cached share of input tokens and the cost at list prices. Twice:
 * in a fresh conversation, and in one with a team's day of history before it (the
 * commander's planning call then carries the conversation; its steps never do).
 */
import { startFakeModelServer, type WireFormat } from "../../server/agents/testing/fake-model-server.ts";
import { runEval, percent, usd, TURN_BEFORE, type EvalRecord } from "./harness.ts";
import { COMPARE_4X3 } from "./requests.ts";
import { fakeTarget, FAKE_MODELS } from "./targets.ts";
import { TEAM_DAY_MESSAGES } from "./team-day.ts";

export interface CachingFigure {
  format: WireFormat;
  modelId: string;
  /** caching on, the first time: nothing cached yet (what it writes, Anthropic bills a quarter more) */
  cold: EvalRecord;
  /** caching on, the same request again within the cache's lifetime */
  warm: EvalRecord;
  /** caching off: the fake reports no cached tokens */
  uncached: EvalRecord;
  /** the request after a team's day: caching on (the turn before it was cached as it happened), and off */
  history: { cached: EvalRecord; uncached: EvalRecord };
}

export async function measureCaching(formats: readonly WireFormat[] = ["anthropic", "openai"]): Promise<CachingFigure[]> {
  const server = await startFakeModelServer();
  try {
    const figures: CachingFigure[] = [];
    for (const format of formats) {
      const [cold, warm] = await runEval(fakeTarget(server, format, true), [COMPARE_4X3, COMPARE_4X3]);
      const [uncached] = await runEval(fakeTarget(server, format, false), [COMPARE_4X3]);
      const [historyCached] = await runEval(fakeTarget(server, format, true), [COMPARE_4X3], { history: true });
      const [historyUncached] = await runEval(fakeTarget(server, format, false), [COMPARE_4X3], { history: true });
      figures.push({
        format,
        modelId: FAKE_MODELS[format],
        cold,
        warm,
        uncached,
        history: { cached: historyCached, uncached: historyUncached },
      });
    }
    return figures;
  } finally {
    await server.close();
  }
}

const savedBy = (record: EvalRecord, uncached: EvalRecord) => (uncached.cost > 0 ? 1 - record.cost / uncached.cost : 0);

export function formatCaching(figures: CachingFigure[]): string {
  const lines = [
    `"${COMPARE_4X3.text}"`,
    "through the fake providers (offline model's answers, usage ≈ request chars / 4, prompt caching simulated);",
    "fresh conversation: cold = caching on, first request on an empty cache; warm = the same request again within the cache's lifetime;",
    `with history: the request after ${TEAM_DAY_MESSAGES} earlier messages and the commander's answer to "${TURN_BEFORE}",`,
    "  which put the conversation so far in the cache (only the request's own calls are counted);",
    "without caching = the fake reports no cached tokens, so all input is billed at the plain input price:",
  ];
  for (const { format, modelId, cold, warm, uncached, history } of figures) {
    for (const [label, record] of [
      ["fresh,   caching, cold  ", cold],
      ["fresh,   caching, warm  ", warm],
      ["fresh,   without caching", uncached],
      ["history, caching        ", history.cached],
      ["history, without caching", history.uncached],
    ] as const) {
      lines.push(
        `  ${format.padEnd(9)} ${modelId.padEnd(28)} ${label}  calls ${record.calls}  in ${record.tokensIn}  out ${record.tokensOut}  ` +
          `cache read ${record.cacheReadTokens} / write ${record.cacheWriteTokens}  cached ${percent(record.cachedShare)}  cost ${usd(record.cost)}  (${record.outcome})`,
      );
    }
    lines.push(
      `  ${format.padEnd(9)} caching saves ${percent(savedBy(warm, uncached))} of the request's cost warm, ${percent(savedBy(cold, uncached))} cold; ` +
        `${percent(savedBy(history.cached, history.uncached))} with history`,
    );
  }
  return lines.join("\n");
}
