/**
 * The "compare 4 × 3" request on both fake providers, with prompt caching and without:
 * calls, tokens, the cached share of input tokens and the cost at list prices. In a
 * fresh conversation, and in one with a team's history before it: a day (within the
 * 40 messages shown in full) and two days (past them, so older messages are summarised).
 * The commander's planning call carries the conversation; the plan's steps never do. And
 * with the sub-agents carrying a team's written instructions, which take a step's prompt
 * past the providers' 1,024-token minimum for caching.
 */
import { startFakeModelServer, type WireFormat } from "../../server/agents/testing/fake-model-server.ts";
import { runEval, percent, usd, TURN_BEFORE, type EvalRecord } from "./harness.ts";
import { COMPARE_4X3 } from "./requests.ts";
import { fakeTarget, FAKE_MODELS } from "./targets.ts";
import { TEAM_DAY_MESSAGES } from "./team-day.ts";

/** The request after `days` of history: caching on (the turn before it was cached as it happened), and off. */
export interface HistoryFigure {
  days: number;
  cached: EvalRecord;
  uncached: EvalRecord;
}

export interface CachingFigure {
  format: WireFormat;
  modelId: string;
  /** caching on, the first time: nothing cached yet (what it writes, Anthropic bills a quarter more) */
  cold: EvalRecord;
  /** caching on, the same request again within the cache's lifetime */
  warm: EvalRecord;
  /** caching off: the fake reports no cached tokens */
  uncached: EvalRecord;
  /** after one day of history, and after two */
  history: HistoryFigure[];
  /** in a fresh conversation, the sub-agents carrying a team's written instructions (agent-instructions.ts) */
  instructed: { cold: EvalRecord; warm: EvalRecord; uncached: EvalRecord };
}

export const HISTORY_DAYS = [1, 2] as const;

export async function measureCaching(formats: readonly WireFormat[] = ["anthropic", "openai"]): Promise<CachingFigure[]> {
  const server = await startFakeModelServer();
  try {
    const figures: CachingFigure[] = [];
    for (const format of formats) {
      const [cold, warm] = await runEval(fakeTarget(server, format, true), [COMPARE_4X3, COMPARE_4X3]);
      const [uncached] = await runEval(fakeTarget(server, format, false), [COMPARE_4X3]);
      const history: HistoryFigure[] = [];
      for (const days of HISTORY_DAYS) {
        const [cached] = await runEval(fakeTarget(server, format, true), [COMPARE_4X3], { historyDays: days });
        const [plain] = await runEval(fakeTarget(server, format, false), [COMPARE_4X3], { historyDays: days });
        history.push({ days, cached, uncached: plain });
      }
      const instructions = { agentInstructions: true };
      const [instructedCold, instructedWarm] = await runEval(fakeTarget(server, format, true), [COMPARE_4X3, COMPARE_4X3], instructions);
      const [instructedUncached] = await runEval(fakeTarget(server, format, false), [COMPARE_4X3], instructions);
      const instructed = { cold: instructedCold, warm: instructedWarm, uncached: instructedUncached };
      figures.push({ format, modelId: FAKE_MODELS[format], cold, warm, uncached, history, instructed });
    }
    return figures;
  } finally {
    await server.close();
  }
}

const savedBy = (record: EvalRecord, uncached: EvalRecord) => (uncached.cost > 0 ? 1 - record.cost / uncached.cost : 0);
/** earlier messages before the request: the day's, then the question and the commander's answer */
const messagesBefore = (days: number) => days * TEAM_DAY_MESSAGES + 2;

export function formatCaching(figures: CachingFigure[]): string {
  const lines = [
    `"${COMPARE_4X3.text}"`,
    "through the fake providers (offline model's answers, usage ≈ request chars / 4, prompt caching simulated);",
    "fresh conversation: cold = caching on, first request on an empty cache; warm = the same request again within the cache's lifetime;",
    `history N = the request after N earlier messages (a team's day, or two), the last two a person's "${TURN_BEFORE}"`,
    "  and the commander's answer, which cached the conversation so far as it happened (only the request's own calls are counted);",
    "without caching = the fake reports no cached tokens, so all input is billed at the plain input price:",
  ];
  const line = (format: string, modelId: string, label: string, record: EvalRecord) =>
    `  ${format.padEnd(9)} ${modelId.padEnd(28)} ${label.padEnd(28)}  calls ${record.calls}  in ${record.tokensIn}  out ${record.tokensOut}  ` +
    `cache read ${record.cacheReadTokens} / write ${record.cacheWriteTokens}  cached ${percent(record.cachedShare)}  cost ${usd(record.cost)}  (${record.outcome})`;
  for (const { format, modelId, cold, warm, uncached, history, instructed } of figures) {
    lines.push(line(format, modelId, "fresh, caching, cold", cold));
    lines.push(line(format, modelId, "fresh, caching, warm", warm));
    lines.push(line(format, modelId, "fresh, without caching", uncached));
    for (const { days, cached, uncached: plain } of history) {
      lines.push(line(format, modelId, `history ${messagesBefore(days)}, caching`, cached));
      lines.push(line(format, modelId, `history ${messagesBefore(days)}, without caching`, plain));
    }
    lines.push(line(format, modelId, "instructed, caching, cold", instructed.cold));
    lines.push(line(format, modelId, "instructed, caching, warm", instructed.warm));
    lines.push(line(format, modelId, "instructed, without caching", instructed.uncached));
    const withHistory = history.map(
      ({ days, cached, uncached: plain }) => `${percent(savedBy(cached, plain))} after ${messagesBefore(days)} messages`,
    );
    lines.push(
      `  ${format.padEnd(9)} caching saves ${percent(savedBy(warm, uncached))} of the request's cost warm, ${percent(savedBy(cold, uncached))} cold, ` +
        withHistory.join(", ") +
        `; with written instructions ${percent(savedBy(instructed.warm, instructed.uncached))} warm, ${percent(savedBy(instructed.cold, instructed.uncached))} cold`,
    );
  }
  return lines.join("\n");
}
