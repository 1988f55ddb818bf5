/**
 * A headless Baton executor in its own process, driven over IPC by tests that need
 * real process boundaries: SIGKILL mid-plan, or two processes on one PostgreSQL.
 * Messages in: { id, type: "submit", conversationId, raw } | { id, type: "plan", planId }
 * | { id, type: "runs", planId } | { id, type: "answer", formId, values } | { id, type: "stop" }.
 * Replies: { id, ok, value | error }. BATON_TEST_RUNNER=offline runs the real agent
 * runtime on the offline model instead of the scripted directive runner.
 */
import { loadConfig } from "../../config/config.ts";
import { bootCore } from "../../boot.ts";
import { silentPublisher } from "../../adapters/socket/socket-publisher.ts";
import { ScriptedRunner } from "./scripted-runner.ts";
import { directiveScript } from "./directive-script.ts";
import { createAgentRunner } from "../../agents/run-agent.ts";
import { createModelRegistry } from "../../agents/model-registry.ts";
import { createPrismaArtifactStore, createPrismaSessionStore } from "../../adapters/prisma/agent-stores.ts";
import { serveIpcRequests } from "../../testing/ipc-serve.ts";

type Request =
  | { id: number; type: "submit"; conversationId: string; raw: unknown }
  | { id: number; type: "conversation"; title: string; agents: string[] }
  | { id: number; type: "plan"; planId: string }
  | { id: number; type: "runs"; planId: string }
  | { id: number; type: "stats" }
  | { id: number; type: "answer"; formId: string; values: unknown }
  | { id: number; type: "stop" };

const config = loadConfig({ ...process.env, BATON_SEED_DEMO: "0" });
const runner = new ScriptedRunner(directiveScript);
const core = await bootCore({
  config,
  createRunner: (db) =>
    process.env.BATON_TEST_RUNNER === "offline"
      ? createAgentRunner({
          models: createModelRegistry({ env: {} }),
          artifacts: createPrismaArtifactStore(db.prisma),
          sessions: createPrismaSessionStore(db.prisma),
        })
      : runner,
  publisher: silentPublisher,
  instanceId: process.env.BATON_INSTANCE_ID,
});
const { prisma } = core.runtime;

serveIpcRequests<Request>({
  async handle(message) {
    switch (message.type) {
      case "submit":
        return core.executor.submitPlan({ conversationId: message.conversationId, raw: message.raw });
      case "conversation":
        return core.runtime.services.createConversation({
          title: message.title,
          agentHandles: message.agents,
          userId: core.runtime.apiUserId,
        });
      case "plan":
        return core.runtime.services.getPlan({ actor: { id: core.runtime.apiUserId, role: "member" }, planId: message.planId });
      case "runs":
        return prisma.run.findMany({
          where: { planId: message.planId },
          orderBy: { createdAt: "asc" },
          select: { id: true, status: true, attempt: true, stepId: true, leaseOwner: true, startedAt: true, endedAt: true },
        });
      case "stats":
        return core.executor.stats;
      case "answer":
        return core.executor.answerForm({ formId: message.formId, userId: core.runtime.apiUserId, values: message.values });
      default:
        return message satisfies never;
    }
  },
  stop: () => core.close(),
  ready: { ready: true, pid: process.pid },
});
