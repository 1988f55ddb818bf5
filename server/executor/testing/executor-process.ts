/**
 * A headless Baton executor in its own process, driven over IPC by tests that need
 * real process boundaries: SIGKILL mid-plan, or two processes on one PostgreSQL.
 * Messages in: { id, type: "submit", conversationId, raw } | { id, type: "plan", planId }
 * | { id, type: "runs", planId } | { id, type: "answer", formId, values } | { id, type: "stop" }.
 * Replies: { id, ok, value | error }. BATON_TEST_RUNNER=offline runs the real agent
 * runtime on the offline model instead of the scripted directive runner.
 * BATON_TEST_WORKSPACE=1 wraps the runner in the workspace runtime (server/workspace),
 * and a scripted run writes the file a `write=PATH` directive names into its slot before
 * it sleeps; { type: "workspace", conversationId, repoPath, agents } links the
 * conversation to a repository and gives those agents the capability, and
 * { type: "slots", planId } reads the plan's Slot rows.
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
import { createWorkspaceRuntime, type WorkspaceRuntime } from "../../workspace/workspace-runner.ts";
import { readWorkspaceSettings } from "../../workspace/settings.ts";
import type { AgentRunner } from "../../ports/executor.ts";

type Request =
  | { id: number; type: "submit"; conversationId: string; raw: unknown }
  | { id: number; type: "conversation"; title: string; agents: string[] }
  | { id: number; type: "plan"; planId: string }
  | { id: number; type: "runs"; planId: string }
  | { id: number; type: "stats" }
  | { id: number; type: "answer"; formId: string; values: unknown }
  | { id: number; type: "workspace"; conversationId: string; repoPath: string; agents: string[] }
  | { id: number; type: "slots"; planId: string }
  | { id: number; type: "stop" };

const config = loadConfig({ ...process.env, BATON_SEED_DEMO: "0" });
const runner = new ScriptedRunner(directiveScript);

/** The scripted runner, writing the file of a `write=PATH` directive into the run's slot first (the file names the step). */
function slotWriting(workspace: WorkspaceRuntime): AgentRunner {
  return {
    async run(request, sink) {
      const file = /write=(\S+)/.exec(request.input)?.[1];
      const tools = workspace.toolsFor(request);
      if (file && tools) {
        await tools.slot_write.execute!(
          { path: file, content: `${request.step?.title ?? "mention"}\n` },
          { toolCallId: "w", messages: [] },
        );
      }
      return runner.run(request, sink);
    },
  };
}

const core = await bootCore({
  config,
  createRunner: (db) =>
    process.env.BATON_TEST_WORKSPACE === "1"
      ? ((workspace) => workspace.wrap(slotWriting(workspace)))(
          createWorkspaceRuntime({
            prisma: db.prisma,
            artifacts: createPrismaArtifactStore(db.prisma),
            settings: readWorkspaceSettings(process.env),
          }),
        )
      : process.env.BATON_TEST_RUNNER === "offline"
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
        return core.app.plans.submitPlan({ conversationId: message.conversationId, raw: message.raw });
      case "conversation":
        return core.app.conversations.createConversation({
          title: message.title,
          agentHandles: message.agents,
          userId: core.runtime.apiUserId,
        });
      case "plan":
        return core.app.conversations.getPlan({ actor: { id: core.runtime.apiUserId, role: "member" }, planId: message.planId });
      case "runs":
        return prisma.run.findMany({
          where: { planId: message.planId },
          orderBy: { createdAt: "asc" },
          select: { id: true, status: true, attempt: true, stepId: true, leaseOwner: true, startedAt: true, endedAt: true },
        });
      case "stats":
        return core.executor.stats;
      case "answer":
        return core.app.forms.answerForm({ formId: message.formId, userId: core.runtime.apiUserId, values: message.values });
      case "workspace": {
        const repository = await prisma.repository.create({ data: { name: `r-${Date.now().toString(36)}`, path: message.repoPath } });
        await prisma.conversation.update({ where: { id: message.conversationId }, data: { repositoryId: repository.id } });
        await prisma.agent.updateMany({ where: { handle: { in: message.agents } }, data: { allowedTools: ["workspace"] } });
        return { repositoryId: repository.id };
      }
      case "slots":
        return prisma.slot.findMany({ where: { planId: message.planId }, orderBy: { stepIndex: "asc" } });
      default:
        return message satisfies never;
    }
  },
  stop: () => core.close(),
  ready: { ready: true, pid: process.pid },
});
