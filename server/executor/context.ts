/** What every part of the executor shares: its dependencies and a few lookups. */
import type { Prisma, PrismaClient, Agent } from "../generated/prisma/client.ts";
import type { AgentRunner, Clock, EventPublisher } from "./ports.ts";

type Tx = Prisma.TransactionClient;

export interface ExecutorConfig {
  planLimits: { maxSteps: number; maxInputChars: number; defaultMaxParallel: number; defaultMaxRetries: number };
  leaseMs: number;
  modelConcurrency: Record<string, number>;
  /** embedded database: this is the only process, so every live run found at start-up is orphaned */
  singleProcess: boolean;
}

export interface ExecutorDeps {
  prisma: PrismaClient;
  runner: AgentRunner;
  publisher: EventPublisher;
  clock: Clock;
  random: () => number;
  /** identifies this process in run leases */
  instanceId: string;
  config: ExecutorConfig;
  logger?: Pick<Console, "info" | "warn" | "error">;
}

export interface ExecutorContext extends ExecutorDeps {
  logger: Pick<Console, "info" | "warn" | "error">;
  /** the commander of a conversation (the workspace's commander if none joined) */
  commanderFor(tx: Tx, conversationId: string): Promise<Agent>;
}

export function createExecutorContext(deps: ExecutorDeps): ExecutorContext {
  return {
    ...deps,
    logger: deps.logger ?? console,
    async commanderFor(tx, conversationId) {
      const joined = await tx.conversationAgent.findFirst({
        where: { conversationId, agent: { role: "commander" } },
        include: { agent: true },
      });
      if (joined) return joined.agent;
      const any = await tx.agent.findFirst({ where: { role: "commander" }, orderBy: { createdAt: "asc" } });
      if (!any) throw new Error("the workspace has no commander agent");
      return any;
    },
  };
}
