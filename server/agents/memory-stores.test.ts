import { randomUUID } from "node:crypto";
import { MemoryArtifactStore, MemoryConversationMemory, MemoryPlanStatusReader, MemorySessionStore } from "./memory-stores.ts";
import { describeStoreConformance } from "./testing/store-conformance.ts";

describeStoreConformance("memory stores", async () => {
  const memory = new MemoryConversationMemory();
  const plans = new MemoryPlanStatusReader();
  return {
    sessions: new MemorySessionStore(),
    artifacts: new MemoryArtifactStore(),
    memory,
    conversation: async () => randomUUID(),
    run: async () => randomUUID(),
    post: async (conversationId, author, body) => memory.add(conversationId, author, body),
    agentHandle: "writer",
    plans,
    plan: async (conversationId, plan) => {
      const id = randomUUID();
      // a deep copy, as the database keeps what was written and not the caller's objects
      plans.plans.push({ ...structuredClone(plan), id, conversationId });
      return id;
    },
  };
});
