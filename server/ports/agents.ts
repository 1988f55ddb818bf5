/**
 * What the agent runtime needs from the outside world, as ports. The server
 * wires Prisma-backed adapters; tests use the in-memory ones in agents/memory-stores.ts.
 */
import type { ModelMessage } from "ai";

/**
 * Where a run's model messages live between a `blocked` run and its resume —
 * the database in the server (Run.session), so a resume works after a restart.
 * Messages are stored uncompacted: compaction only shapes what a model sees.
 */
export interface SessionStore {
  load(runId: string): Promise<ModelMessage[] | null>;
  save(runId: string, messages: ModelMessage[]): Promise<void>;
}

/** Who wrote a file: the run, its agent, and its plan step if any. */
export interface ArtifactProducer {
  runId: string;
  agentHandle: string;
  planId?: string;
  stepIndex?: number;
}

export interface ArtifactRecord {
  id: string;
  conversationId: string;
  name: string;
  mediaType: string;
  size: number;
  /** hex sha256 of the content, computed by the runtime so every adapter agrees */
  sha256: string;
  /** came from outside (upload, fetched page, tool output) or derived from such content */
  untrusted: boolean;
  /** null for uploads by people */
  producer: ArtifactProducer | null;
  createdAt: string;
}

export interface ArtifactWrite {
  conversationId: string;
  name: string;
  content: Uint8Array;
  mediaType: string;
  sha256: string;
  untrusted: boolean;
  producer: ArtifactProducer;
}

/**
 * A conversation's files. Names are unique per conversation; writing an
 * existing name stores a new version that `read` returns from then on.
 */
export interface ArtifactStore {
  list(input: { conversationId: string }): Promise<ArtifactRecord[]>;
  read(input: { conversationId: string; name: string }): Promise<{ record: ArtifactRecord; content: Uint8Array } | null>;
  write(input: ArtifactWrite): Promise<ArtifactRecord>;
}

/** An MCP server an agent may use, as configured on the agent (Agent.mcpServers). */
export interface McpServerConfig {
  name: string;
  transport: "stdio" | "http";
  command?: string;
  args?: string[];
  env?: Record<string, string>;
  url?: string;
}

/** A message of the conversation as an agent's context shows it. */
export interface HistoryMessage {
  id: string;
  author: { kind: "user"; name: string } | { kind: "agent"; handle: string; name: string } | { kind: "system" };
  body: string;
  createdAt: string;
}

/** What a conversation's older history was summarised to, and up to which message. */
export interface HistorySummary {
  text: string;
  /** the newest message the summary covers */
  upToMessageId: string;
  upToCreatedAt: string;
  /**
   * when the messages (and the earlier summary) it was made from were read: a summary
   * covering a message edited or deleted since is not stored (it would keep the old words)
   */
  readAt?: string;
}

/**
 * A conversation's messages for agents that take part in it (the commander, an agent a
 * person mentions), and the stored summary of what is too old to show in full.
 */
export interface ConversationMemory {
  /**
   * Up to `limit` messages before `beforeMessageId` (or the newest, without it), oldest
   * first, and whether older ones exist.
   */
  recent(input: {
    conversationId: string;
    beforeMessageId?: string;
    limit: number;
  }): Promise<{ messages: HistoryMessage[]; olderExist: boolean }>;
  /** Messages after `afterCreatedAt` (all, without it) up to and including `upToMessageId`, oldest first. */
  range(input: { conversationId: string; afterCreatedAt?: string; upToMessageId: string; limit: number }): Promise<HistoryMessage[]>;
  loadSummary(conversationId: string): Promise<HistorySummary | null>;
  saveSummary(conversationId: string, summary: HistorySummary): Promise<void>;
}

// The plan_status tool's view of a plan (agents/plan-status.ts), read by the Prisma and
// memory stores.
export interface PlanStatusLogEntry {
  at: string;
  phase: string;
  message: string;
}

export interface PlanStatusStep {
  index: number;
  title: string;
  assignee: string;
  status: string;
  attempts: number;
  summary: string | null;
  failureReason: string | null;
  /** oldest first; the newest PLAN_STATUS_LOG_ENTRIES (agents/plan-status.ts) */
  log: PlanStatusLogEntry[];
}

export interface PlanStatusView {
  id: string;
  title: string;
  status: string;
  steps: PlanStatusStep[];
}

/** Reads a plan of a conversation (its newest plan without planId); null when there is none. */
export interface PlanStatusReader {
  read(input: { conversationId: string; planId?: string; stepIndex?: number; logLimit: number }): Promise<PlanStatusView | null>;
}
