import { randomUUID } from "node:crypto";
import { MemoryArtifactStore, MemoryConversationMemory, MemorySessionStore } from "./memory-stores.ts";
import { describeStoreConformance } from "./testing/store-conformance.ts";

describeStoreConformance("memory stores", async () => {
  const memory = new MemoryConversationMemory();
  return {
    sessions: new MemorySessionStore(),
    artifacts: new MemoryArtifactStore(),
    memory,
    conversation: async () => randomUUID(),
    run: async () => randomUUID(),
    post: async (conversationId, author, body) => memory.add(conversationId, author, body),
    agentHandle: "writer",
  };
});
