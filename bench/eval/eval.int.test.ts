/**
 * The evaluation harness against the fake providers: it drives real requests to an end
 * through the executor and the agent runtime, records what they cost, and the simulated
 * prompt cache makes caching visible in the "compare 4 × 3" figures.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeModelServer, type FakeModelServer } from "../../server/agents/testing/fake-model-server.ts";
import { formatRecord, runEval } from "./harness.ts";
import { COMPARE_4X3, EVAL_REQUESTS } from "./requests.ts";
import { fakeTarget } from "./targets.ts";
import { formatCaching, measureCaching } from "./caching.ts";

(globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;

const byId = (id: string) => EVAL_REQUESTS.find((request) => request.id === id)!;

describe("the evaluation harness through the fake providers", () => {
  let server: FakeModelServer;
  beforeAll(async () => {
    server = await startFakeModelServer();
  });
  afterAll(() => server.close());

  it("ends a comparison, a request that needs a person and a simple question, and records their cost", async () => {
    const requests = [COMPARE_4X3, byId("person-offsite"), byId("simple-time")];
    const target = fakeTarget(server, "anthropic", true);
    const [compare, person, simple] = await runEval(target, requests, { timeoutMs: 20_000 });

    // 4 companies and 3 aspects: six parallel steps and a synthesis, planned in one call
    expect(compare.outcome).toBe("completed");
    expect(compare.plan?.steps).toHaveLength(7);
    expect(compare.plan?.steps.at(-1)).toEqual({ assignee: "commander", title: "Synthesize the findings" });
    expect(compare.critic).toEqual({ findings: [], rejected: null });
    expect(compare.calls).toBe(8);
    expect(compare.cost).toBeGreaterThan(0);
    // every call was counted: the fake saw as many requests as the records say
    expect(compare.calls + person.calls + simple.calls).toBe(server.requests.length);

    // the steps asked a person; the harness answered each form and the plan went on
    expect(person.outcome).toBe("completed");
    expect(person.formsAnswered).toBeGreaterThan(0);
    expect(person.calls).toBeGreaterThanOrEqual(2);

    expect(simple).toMatchObject({ outcome: "answered", plan: null, critic: null, calls: 1 });
    for (const record of [compare, person, simple]) {
      expect(record.tokensIn).toBeGreaterThan(0);
      expect(record.tokensOut).toBeGreaterThan(0);
    }
    // the commander's system prompt was cached by the first request and read by the next ones
    expect(simple.cacheReadTokens).toBeGreaterThan(0);
    expect(formatRecord(compare)).toContain("@commander: Synthesize the findings");
  });

  it("the cached share of input tokens is higher with caching than without, on both wire formats", async () => {
    const figures = await measureCaching();
    expect(figures.map((figure) => figure.format)).toEqual(["anthropic", "openai"]);
    for (const { format, cold, warm, uncached, history, instructed } of figures) {
      for (const record of [cold, warm, uncached]) expect(record.outcome).toBe("completed");
      expect(uncached.cachedShare).toBe(0);
      expect(warm.cachedShare).toBeGreaterThan(uncached.cachedShare);
      expect(warm.cost).toBeLessThan(uncached.cost);
      // the same requests were sent each time: only what the provider reports differs
      expect(warm.tokensIn).toBe(uncached.tokensIn);
      // Anthropic bills the first write a quarter above the input price
      if (format === "anthropic") expect(cold.cacheWriteTokens).toBeGreaterThan(0);

      // after a conversation's earlier turns, within the messages shown in full (one day) and
      // past them (two days): the same calls, and the planning call reads the stable prefix
      // (tools, system prompt, roster) and the history that the turn before it cached
      expect(history.map((figure) => figure.days)).toEqual([1, 2]);
      for (const { cached, uncached: plain } of history) {
        for (const record of [cached, plain]) expect(record).toMatchObject({ outcome: "completed", calls: 8 });
        expect(cached.tokensIn).toBe(plain.tokensIn);
        expect(cached.tokensIn).toBeGreaterThan(warm.tokensIn);
        expect(plain.cachedShare).toBe(0);
        expect(cached.cacheReadTokens).toBeGreaterThan(warm.cacheReadTokens);
        expect(cached.cachedShare).toBeGreaterThan(warm.cachedShare);
        expect(cached.cost).toBeLessThan(plain.cost);
      }

      // with a team's written instructions a step's prompt passes the providers' minimum:
      // the plan's later steps read the prefix the first step of their agent wrote, and
      // the same request again reads most of its input from cache
      for (const record of Object.values(instructed)) expect(record).toMatchObject({ outcome: "completed", calls: 8 });
      expect(instructed.cold.cacheReadTokens).toBeGreaterThan(warm.cacheReadTokens);
      expect(instructed.warm.cachedShare).toBeGreaterThan(0.5);
      expect(instructed.warm.cost).toBeLessThan(instructed.uncached.cost);
    }
    expect(formatCaching(figures)).toContain("without caching");
  });
});
