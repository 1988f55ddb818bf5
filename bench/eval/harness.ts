/**
 * The evaluation harness: sends requests through the real executor and agent runtime
 * (on an in-memory database) to a model — a real provider, or the fake provider servers
 * answering as the offline model — and records per request the plan, what the plan
 * critic found on the commander's first proposal, model calls, tokens, cache and cost.
 */
import { randomUUID } from "node:crypto";
import { createAgentRunner } from "../../server/agents/run-agent.ts";
import { createModelRegistry, type ModelPrice } from "../../server/agents/model-registry.ts";
import { corePlanValidator } from "../../server/agents/core-plan-validator.ts";
import type { PlanValidator } from "../../server/agents/tools.ts";
import {
  createPrismaArtifactStore,
  createPrismaConversationMemory,
  createPrismaSessionStore,
} from "../../server/adapters/prisma/agent-stores.ts";
import { createExecutorFixture, TEST_EXECUTOR_CONFIG, type ExecutorFixture } from "../../server/executor/testing/executor-fixture.ts";
import type { PlanFinding } from "../../server/core/plan-critic.ts";
import type { PlanStatus } from "../../server/core/types.ts";
import type { EvalRequest } from "./requests.ts";
import { AGENT_INSTRUCTIONS } from "./agent-instructions.ts";
import { seedTeamDay } from "./team-day.ts";

/** Where the model calls go. `countCalls` says how many calls the provider has received so far. */
export interface EvalTarget {
  label: string;
  /** `provider:model`, given to every agent */
  modelId: string;
  /** the provider variables (key, base URL) */
  env: Record<string, string | undefined>;
  /** prices overriding the defaults, e.g. a table without cache rates */
  prices?: Record<string, ModelPrice>;
  /** directives for the offline model are added to the requests (fakes only) */
  offline: boolean;
  countCalls(): number;
}

export type EvalOutcome = PlanStatus | "answered" | "no answer" | "timed out";

export interface EvalRecord {
  id: string;
  kind: EvalRequest["kind"];
  plan: { title: string; steps: { assignee: string; title: string }[] } | null;
  /** the critic's findings on the commander's first valid proposal; a rejection's reason if it was invalid */
  critic: { findings: PlanFinding[]; rejected: string | null } | null;
  calls: number;
  tokensIn: number;
  tokensOut: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  cost: number;
  /** the share of input tokens read from the provider's cache */
  cachedShare: number;
  formsAnswered: number;
  outcome: EvalOutcome;
}

const ENDED_RUN = ["succeeded", "failed", "blocked", "cancelled", "lost"] as const;

/** A plausible answer to a form field, so requests that need a person can go on. */
function answerField(field: { name: string; type?: string; options?: string[] }): unknown {
  switch (field.type) {
    case "number":
      return 5000;
    case "boolean":
      return true;
    case "select":
      return field.options?.[0] ?? "";
    default:
      return "Go ahead; keep it under 5,000 EUR and highlight the fastest option.";
  }
}

interface Harness {
  fixture: ExecutorFixture;
  /** the critic's reading of the first proposal since the last reset */
  critic: { current: EvalRecord["critic"] };
}

async function openHarness(target: EvalTarget): Promise<Harness> {
  const critic: Harness["critic"] = { current: null };
  const validate = corePlanValidator(TEST_EXECUTOR_CONFIG.planLimits);
  const recordingValidator: PlanValidator = (raw, request) => {
    const verdict = validate(raw, request);
    if (critic.current === null)
      critic.current = verdict.ok
        ? { findings: [...(verdict.findings ?? [])], rejected: null }
        : { findings: [], rejected: verdict.message };
    return verdict;
  };
  const fixture = await createExecutorFixture({
    createRunner: (db) =>
      createAgentRunner({
        models: createModelRegistry({ env: target.env, prices: target.prices }),
        artifacts: createPrismaArtifactStore(db.prisma),
        sessions: createPrismaSessionStore(db.prisma),
        memory: createPrismaConversationMemory(db.prisma),
        validatePlan: recordingValidator,
      }),
  });
  await fixture.db.prisma.agent.updateMany({ data: { model: target.modelId } });
  fixture.executor.agentsChanged();
  return { fixture, critic };
}

async function settle(
  fixture: ExecutorFixture,
  conversationId: string,
  deadline: number,
): Promise<{ formsAnswered: number; timedOut: boolean }> {
  const prisma = fixture.db.prisma;
  let formsAnswered = 0;
  for (;;) {
    await fixture.executor.idle();
    const forms = await prisma.form.findMany({ where: { conversationId, status: "open" } });
    for (const form of forms) {
      const fields = form.fields as { name: string; type?: string; options?: string[] }[];
      const values = Object.fromEntries(fields.map((field) => [field.name, answerField(field)]));
      await fixture.app.forms.answerForm({ formId: form.id, userId: fixture.userId, values });
      formsAnswered += 1;
    }
    const active = await prisma.run.count({ where: { conversationId, status: { notIn: [...ENDED_RUN] } } });
    const running = await prisma.plan.count({ where: { conversationId, status: "running" } });
    if (forms.length === 0 && active === 0 && running === 0) return { formsAnswered, timedOut: false };
    if (Date.now() > deadline) return { formsAnswered, timedOut: true };
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * The question a person asks the commander just before the request in a conversation
 * with history: the commander's answer to it is the turn before the request, as in real
 * use (its run leaves the conversation so far in the provider's cache).
 */
export const TURN_BEFORE = "@commander remind me what we settled about SSO for the support desk";

async function runOne(harness: Harness, target: EvalTarget, request: EvalRequest, options: Required<EvalOptions>): Promise<EvalRecord> {
  const { fixture } = harness;
  const prisma = fixture.db.prisma;
  const conversation = await fixture.services.createConversation({
    title: `eval ${request.id} ${randomUUID().slice(0, 8)}`,
    agentHandles: ["researcher", "analyst", "writer"],
    userId: fixture.userId,
  });
  const post = (body: string) =>
    fixture.app.messages.postMessage({ conversationId: conversation.id, author: { kind: "user", userId: fixture.userId }, body });
  if (options.historyDays > 0) {
    await seedTeamDay(prisma, { conversationId: conversation.id, userId: fixture.userId, days: options.historyDays });
    await post(TURN_BEFORE);
    await settle(fixture, conversation.id, Date.now() + options.timeoutMs);
  }
  // what the request itself cost: the runs and messages of the turn before it are not counted
  const before = (await prisma.run.findMany({ where: { conversationId: conversation.id }, select: { id: true } })).map((run) => run.id);
  harness.critic.current = null;
  const callsBefore = target.countCalls();
  await post(target.offline && request.offline ? `${request.text}\n${request.offline}` : request.text);
  const { formsAnswered, timedOut } = await settle(fixture, conversation.id, Date.now() + options.timeoutMs);

  const plan = await prisma.plan.findFirst({
    where: { conversationId: conversation.id },
    orderBy: { createdAt: "asc" },
    include: { steps: { orderBy: { index: "asc" }, select: { assignee: true, title: true } } },
  });
  const usage = await prisma.run.aggregate({
    where: { conversationId: conversation.id, id: { notIn: before } },
    _sum: { tokensIn: true, tokensOut: true, cacheReadTokens: true, cacheWriteTokens: true, cost: true },
  });
  const agentMessages = await prisma.message.count({
    where: { conversationId: conversation.id, authorKind: "agent", runId: { not: null, notIn: before } },
  });
  const tokensIn = usage._sum.tokensIn ?? 0;
  const cacheReadTokens = usage._sum.cacheReadTokens ?? 0;
  return {
    id: request.id,
    kind: request.kind,
    plan: plan ? { title: plan.title, steps: plan.steps } : null,
    critic: harness.critic.current,
    calls: target.countCalls() - callsBefore,
    tokensIn,
    tokensOut: usage._sum.tokensOut ?? 0,
    cacheReadTokens,
    cacheWriteTokens: usage._sum.cacheWriteTokens ?? 0,
    cost: usage._sum.cost ?? 0,
    cachedShare: tokensIn > 0 ? cacheReadTokens / tokensIn : 0,
    formsAnswered,
    outcome: timedOut ? "timed out" : plan ? plan.status : agentMessages > 0 ? "answered" : "no answer",
  };
}

export interface EvalOptions {
  timeoutMs?: number;
  /** each request comes after this many days of a team's messages (team-day.ts) and the commander's answer to TURN_BEFORE */
  historyDays?: number;
  /** the sub-agents carry a team's written instructions (agent-instructions.ts), not the demo's one line */
  agentInstructions?: boolean;
}

/** Runs the requests one after another, each in a conversation of its own, on one fresh database. */
export async function runEval(target: EvalTarget, requests: EvalRequest[], options: EvalOptions = {}): Promise<EvalRecord[]> {
  const harness = await openHarness(target);
  try {
    if (options.agentInstructions) {
      for (const [handle, systemPrompt] of Object.entries(AGENT_INSTRUCTIONS)) {
        await harness.fixture.db.prisma.agent.update({ where: { handle }, data: { systemPrompt } });
      }
      harness.fixture.executor.agentsChanged();
    }
    const records: EvalRecord[] = [];
    const settled = {
      timeoutMs: options.timeoutMs ?? 120_000,
      historyDays: options.historyDays ?? 0,
      agentInstructions: options.agentInstructions ?? false,
    };
    for (const request of requests) records.push(await runOne(harness, target, request, settled));
    return records;
  } finally {
    await harness.fixture.close();
  }
}

const usd = (value: number) => `$${value.toFixed(6)}`;
const percent = (share: number) => `${(share * 100).toFixed(1)} %`;

/** The lines printed for one request. */
export function formatRecord(record: EvalRecord): string {
  const lines = [`■ ${record.id} (${record.kind}) → ${record.outcome}`];
  if (record.plan) {
    lines.push(`  plan: ${record.plan.title}`);
    record.plan.steps.forEach((step, i) => lines.push(`    ${i + 1}. @${step.assignee}: ${step.title}`));
  } else lines.push("  plan: none (answered directly)");
  const critic = record.critic;
  lines.push(
    `  critic: ${
      critic === null
        ? "no proposal"
        : critic.rejected
          ? `first proposal rejected: ${critic.rejected}`
          : critic.findings.length === 0
            ? "nothing to fix"
            : critic.findings.map((finding) => `${finding.kind} [steps ${finding.steps.join(", ")}]`).join("; ")
    }`,
  );
  lines.push(
    `  calls ${record.calls} · tokens ${record.tokensIn} in / ${record.tokensOut} out · cache ${record.cacheReadTokens} read / ` +
      `${record.cacheWriteTokens} write (${percent(record.cachedShare)} of input) · cost ${usd(record.cost)}` +
      (record.formsAnswered > 0 ? ` · forms answered ${record.formsAnswered}` : ""),
  );
  return lines.join("\n");
}

export function totals(records: EvalRecord[]): Pick<EvalRecord, "calls" | "tokensIn" | "tokensOut" | "cacheReadTokens" | "cost"> {
  return records.reduce(
    (sum, r) => ({
      calls: sum.calls + r.calls,
      tokensIn: sum.tokensIn + r.tokensIn,
      tokensOut: sum.tokensOut + r.tokensOut,
      cacheReadTokens: sum.cacheReadTokens + r.cacheReadTokens,
      cost: sum.cost + r.cost,
    }),
    { calls: 0, tokensIn: 0, tokensOut: 0, cacheReadTokens: 0, cost: 0 },
  );
}

export { usd, percent };
