/**
 * In-memory SessionStore, ArtifactStore, ConversationMemory and PlanStatusReader, for
 * tests and the demo's fakes. They pass the same conformance suite as the Prisma stores
 * (testing/store-conformance.ts), so they behave as the database does.
 */
import type { PlanStatusReader, PlanStatusView } from "../ports/agents.ts";
import type { ModelMessage } from "ai";
import { toStorableJson } from "../core/text.ts";
import type {
  ArtifactRecord,
  ArtifactStore,
  ArtifactWrite,
  ConversationMemory,
  HistoryMessage,
  HistorySummary,
  SessionStore,
} from "../ports/agents.ts";

export class MemorySessionStore implements SessionStore {
  readonly sessions = new Map<string, ModelMessage[]>();

  async load(runId: string): Promise<ModelMessage[] | null> {
    const messages = this.sessions.get(runId);
    // a JSON copy, as a database JSON column would hand back: no shared state, no class instances
    return messages ? (JSON.parse(JSON.stringify(messages)) as ModelMessage[]) : null;
  }

  async save(runId: string, messages: ModelMessage[]): Promise<void> {
    // what a jsonb column keeps: no U+0000, no lone surrogate
    this.sessions.set(runId, toStorableJson(JSON.parse(JSON.stringify(messages)) as ModelMessage[]));
  }
}

export class MemoryArtifactStore implements ArtifactStore {
  private readonly files = new Map<string, { record: ArtifactRecord; content: Uint8Array }>();
  private nextId = 1;

  private key(conversationId: string, name: string): string {
    return `${conversationId}\u0000${name}`;
  }

  async list({ conversationId }: { conversationId: string }): Promise<ArtifactRecord[]> {
    return [...this.files.values()]
      .filter((file) => file.record.conversationId === conversationId)
      .map((file) => ({ ...file.record }))
      .sort((a, b) => a.name.localeCompare(b.name));
  }

  async read({ conversationId, name }: { conversationId: string; name: string }) {
    const file = this.files.get(this.key(conversationId, name));
    return file ? { record: { ...file.record }, content: file.content.slice() } : null;
  }

  async write(input: ArtifactWrite): Promise<ArtifactRecord> {
    const record: ArtifactRecord = {
      id: `artifact-${this.nextId++}`,
      conversationId: input.conversationId,
      name: input.name,
      mediaType: input.mediaType,
      size: input.content.byteLength,
      sha256: input.sha256,
      untrusted: input.untrusted,
      producer: input.producer,
      createdAt: new Date().toISOString(),
    };
    this.files.set(this.key(input.conversationId, input.name), { record, content: input.content.slice() });
    return { ...record };
  }

  /** Test helper: an upload by a person (no producer). */
  async upload(input: { conversationId: string; name: string; content: string; mediaType?: string; untrusted?: boolean }) {
    const { createHash } = await import("node:crypto");
    const content = new TextEncoder().encode(input.content);
    const record: ArtifactRecord = {
      id: `artifact-${this.nextId++}`,
      conversationId: input.conversationId,
      name: input.name,
      mediaType: input.mediaType ?? "text/plain",
      size: content.byteLength,
      sha256: createHash("sha256").update(content).digest("hex"),
      untrusted: input.untrusted ?? true,
      producer: null,
      createdAt: new Date().toISOString(),
    };
    this.files.set(this.key(input.conversationId, input.name), { record, content });
    return record;
  }
}

/** A conversation's messages in memory, in the order they were added. */
export class MemoryConversationMemory implements ConversationMemory {
  readonly messages: (HistoryMessage & { conversationId: string })[] = [];
  readonly summaries = new Map<string, HistorySummary>();
  summarySaves = 0;
  private clock = Date.parse("2026-01-01T00:00:00Z");

  add(conversationId: string, author: HistoryMessage["author"], body: string): HistoryMessage {
    const message = {
      id: `m${this.messages.length + 1}`,
      conversationId,
      author,
      body,
      createdAt: new Date((this.clock += 1000)).toISOString(),
    };
    this.messages.push(message);
    const { conversationId: _, ...history } = message;
    return history;
  }

  private of(conversationId: string) {
    return this.messages.filter((message) => message.conversationId === conversationId);
  }

  async recent({ conversationId, beforeMessageId, limit }: { conversationId: string; beforeMessageId?: string; limit: number }) {
    const all = this.of(conversationId);
    const end = beforeMessageId ? all.findIndex((message) => message.id === beforeMessageId) : all.length;
    const upTo = end < 0 ? all.length : end;
    const start = Math.max(0, upTo - limit);
    return { messages: all.slice(start, upTo).map(({ conversationId: _, ...message }) => message), olderExist: start > 0 };
  }

  async range({
    conversationId,
    afterCreatedAt,
    upToMessageId,
    limit,
  }: {
    conversationId: string;
    afterCreatedAt?: string;
    upToMessageId: string;
    limit: number;
  }) {
    const all = this.of(conversationId);
    const upTo = all.find((message) => message.id === upToMessageId);
    if (!upTo) return [];
    return all
      .filter((message) => (afterCreatedAt === undefined || message.createdAt > afterCreatedAt) && message.createdAt <= upTo.createdAt)
      .slice(0, limit)
      .map(({ conversationId: _, ...message }) => message);
  }

  async loadSummary(conversationId: string) {
    return this.summaries.get(conversationId) ?? null;
  }

  async saveSummary(conversationId: string, summary: HistorySummary) {
    this.summarySaves++;
    // only ever forward: two runs summarising at once keep the one that covers more
    const kept = this.summaries.get(conversationId);
    if (!kept || kept.upToCreatedAt < summary.upToCreatedAt) this.summaries.set(conversationId, summary);
  }
}

/** Plans by conversation, newest last, for plan_status tests. */
export class MemoryPlanStatusReader implements PlanStatusReader {
  readonly plans: (PlanStatusView & { conversationId: string })[] = [];
  readonly reads: { conversationId: string; planId?: string; stepIndex?: number }[] = [];

  async read(input: { conversationId: string; planId?: string; stepIndex?: number; logLimit: number }) {
    this.reads.push({ conversationId: input.conversationId, planId: input.planId, stepIndex: input.stepIndex });
    const mine = this.plans.filter((plan) => plan.conversationId === input.conversationId);
    const plan = input.planId ? mine.find((candidate) => candidate.id === input.planId) : mine.at(-1);
    if (!plan) return null;
    const { conversationId: _, ...view } = plan;
    // as the database answers: the step asked for only, in index order, copies
    const steps = view.steps
      .filter((step) => input.stepIndex === undefined || step.index === input.stepIndex)
      .sort((a, b) => a.index - b.index);
    return { ...view, steps: steps.map((step) => ({ ...step, log: step.log.slice(-input.logLimit).map((entry) => ({ ...entry })) })) };
  }
}
