/** The real agent runtime on the offline model, with the database-backed stores: what the server wires, minus the network. */
import type { Database } from "../../db/database.ts";
import { createAgentRunner } from "../../agents/run-agent.ts";
import { createModelRegistry } from "../../agents/model-registry.ts";
import { corePlanValidator } from "../../agents/core-plan-validator.ts";
import { createPrismaArtifactStore, createPrismaConversationMemory, createPrismaSessionStore } from "../../adapters/prisma/agent-stores.ts";
import { TEST_EXECUTOR_CONFIG } from "./executor-fixture.ts";

/** The create_plan validator the server wires, with the test executor's plan limits. */
export const testPlanValidator = () => corePlanValidator(TEST_EXECUTOR_CONFIG.planLimits);

export function offlineAgentRunner(db: Database) {
  return createAgentRunner({
    models: createModelRegistry({ env: {} }),
    artifacts: createPrismaArtifactStore(db.prisma),
    sessions: createPrismaSessionStore(db.prisma),
    memory: createPrismaConversationMemory(db.prisma),
    validatePlan: testPlanValidator(),
  });
}
