/**
 * A bare Baton server (serve.ts: database, executor, Socket.IO, readiness probe; no
 * pages) in its own process, driven over IPC by tests of several processes: start-up
 * races, rolling upgrades, live events across processes. Agents are the scripted
 * directive runner. Configured by the environment like the real server (PORT=0 picks a
 * free port). Messages in: { id, type: "submit", conversationId, raw }
 * | { id, type: "conversation", title, agents, userId } | { id, type: "stop" }.
 * Replies: { id, ok, value | error }; first message: { id: 0, ok, value: { port, pid } }.
 */
import { loadConfig } from "../config/config.ts";
import { closeOnSignals, serveBaton } from "../serve.ts";
import { ScriptedRunner } from "../executor/testing/scripted-runner.ts";
import { directiveScript } from "../executor/testing/directive-script.ts";
import { serveIpcRequests } from "./ipc-serve.ts";

type Request =
  | { id: number; type: "submit"; conversationId: string; raw: unknown }
  | { id: number; type: "conversation"; title: string; agents: string[]; userId?: string }
  | { id: number; type: "stop" };

const config = loadConfig({ HOST: "127.0.0.1", PORT: "0", ...process.env });
const runner = new ScriptedRunner(directiveScript);
const served = await serveBaton({ config, createRunner: () => runner, instanceId: process.env.BATON_INSTANCE_ID });
const { core } = served;
closeOnSignals(served);

serveIpcRequests<Request>({
  async handle(message) {
    switch (message.type) {
      case "submit":
        return core.app.plans.submitPlan({ conversationId: message.conversationId, raw: message.raw });
      case "conversation":
        return core.app.conversations.createConversation({
          title: message.title,
          agentHandles: message.agents,
          userId: message.userId ?? core.runtime.apiUserId,
        });
      default:
        return message satisfies never;
    }
  },
  stop: () => served.close(),
  ready: { port: served.port, pid: process.pid },
});
