/**
 * The executor's ports: what it needs from the outside world other than its database
 * — the agent runtime (AgentRunner), live delivery (EventPublisher) and time (Clock).
 * The server plugs in the runtime and Socket.IO; tests plug in scripted runners and
 * recorders.
 *
 * The database is not a port: the executor is Prisma-bound by design. Its unit of work
 * is a PostgreSQL transaction (advisory lock, baton_write_units, baton_claim_runs), so
 * it takes a Prisma transaction and uses the Prisma adapters (adapters/prisma/)
 * directly. What it must decide lives in the pure core instead, testable without a
 * database (see server/ARCHITECTURE.md, "Decide in the core, do in the executor").
 */
import type { AgentRole, EscalationCause, FormSpec } from "../core/types.ts";
import type { Notice } from "../core/notices.ts";
import type { ConversationEventDTO } from "../protocol/events.ts";

/** An agent as the runtime needs it. */
export interface AgentProfile {
  id: string;
  handle: string;
  name: string;
  role: AgentRole;
  systemPrompt: string;
  model: string;
  allowedTools: string[];
  skills: string[];
  concurrency: number;
  mcpServers: unknown;
}

export interface ArtifactRef {
  id: string;
  name: string;
  mediaType: string;
  size: number;
  untrusted: boolean;
}

/** Why the run was started; the agent sees the same request either way (rule 2). */
export type RunPurpose =
  /** a person (or the commander dispatching a step) @-mentioned the agent */
  | { kind: "mention" }
  /** a message that mentions nobody goes to the commander */
  | { kind: "commander-chat" }
  /** commander step of a plan (synthesis / decision), woken privately */
  | { kind: "commander-step" }
  /** an ask_commander step failed: decide retry | skip | abort | append */
  | {
      kind: "commander-decision";
      /** the step and what it was asked (its input as rendered), so the commander can judge a retry */
      failedStep: { index: number; title: string; assignee: string; input: string; failureReason: string };
    };

/**
 * An agent of the conversation as the commander is told of it. The fields past `role`
 * are optional: a run stored before they existed still resumes.
 */
export interface RosterEntry {
  handle: string;
  name: string;
  role: AgentRole;
  description?: string;
  skills?: string[];
  /** its allow-list; empty: the role's default tools */
  tools?: string[];
  model?: string;
}

export interface RunRequest {
  runId: string;
  conversationId: string;
  agent: AgentProfile;
  purpose: RunPurpose;
  /** the message body or the step's rendered input */
  input: string;
  /** the original request of the plan (or the message itself) and its attachments */
  request: { text: string; attachments: ArtifactRef[] };
  /** set when this run belongs to a plan step */
  step?: { planId: string; stepIndex: number; title: string };
  /** the agents in this conversation, so the commander can plan with them */
  roster: RosterEntry[];
  /** set when the run resumes a blocked session with a person's form answer */
  resume?: ResumeInput;
  /** the message that started the run (a person's message, or the commander's dispatch) */
  triggerMessageId?: string;
  /**
   * which run of its step or chat reply this is (1-based; absent: the first). Only the
   * first retries a failed model call in place (core/retry-policy.ts, inRunRetriesFor).
   */
  attempt?: number;
  signal: AbortSignal;
  /**
   * Set on a run started early: while the statement that creates and claims it is still
   * being written (ARCHITECTURE.md, "Early start"). Until it resolves, the runner may only
   * prepare: build the prompt, the tools and the model call, reading nothing from the
   * database and letting nothing out of the process (no model request, tool, connection
   * or workspace). It resolves true once the run is this process's to run, or false when
   * it is not (the unit was refused, or its claim went elsewhere); then `signal` is
   * aborted too, and nothing the run does is recorded. `startConfirmed` reads it.
   */
  confirmed?: Promise<boolean>;
}

/** Waits until the run may act (see RunRequest.confirmed): false when it never may. */
export async function startConfirmed(request: Pick<RunRequest, "confirmed">): Promise<boolean> {
  return request.confirmed ? request.confirmed : true;
}

export interface Usage {
  tokensIn: number;
  tokensOut: number;
  cost: number;
  /** of tokensIn, read from the provider's prompt cache */
  cacheReadTokens?: number;
  /** of tokensIn, written to the provider's prompt cache (Anthropic charges extra for them) */
  cacheWriteTokens?: number;
  /** part of it is estimated: a model call cut mid-stream reports no usage */
  estimated?: boolean;
}

/** What a finished run reports. The executor alone decides what it means for the plan. */
export type AgentRunResult =
  | {
      kind: "ok";
      /** the visible answer (markdown) */
      text: string;
      /** the text is the runtime's own words (a reply with nothing to say), as data for other languages */
      notice?: Notice;
      summary: string;
      files: string[];
      untrusted: boolean;
      /** the commander's create_plan tool input, unvalidated (the executor validates) */
      plan?: unknown;
      /** the commander's decision tool input for a failed step, unvalidated */
      decision?: unknown;
      usage: Usage;
    }
  | { kind: "blocked"; form: FormSpec; text: string; usage: Usage }
  /**
   * `retryAfterMs`: the provider's Retry-After, too long for the run to wait (a durable wait, core/retry-policy.ts);
   * `cause`: the failure is one a stronger model could fix (the step may escalate, core/run-model.ts)
   */
  | { kind: "failed"; transient: boolean; reason: string; retryAfterMs?: number; cause?: EscalationCause; usage: Usage };

/** Live signals while a run is going; none of them is stored by the runner itself. */
/**
 * A form answer for the session that asked. `answer` holds the values of secret fields
 * in the clear: it lives only in memory, in this run, and is never stored or logged;
 * `secrets` lists those values so the runtime can mask them in all it emits.
 */
export interface ResumeInput {
  previousRunId: string;
  answer: string;
  secrets?: string[];
}

export interface RunSink {
  textDelta(delta: string): void;
  log(entry: { phase: string; message: string; data?: unknown }): void;
  /**
   * one live status line of the run while it waits (an in-run retry, a provider whose
   * circuit is open); null clears it. Shown on the step, never stored.
   */
  status?(text: string | null): void;
  /**
   * the live text of the run is now `text`: a cut model call is being retried, and what it
   * streamed is not part of the result (live views replace what they showed)
   */
  resetText?(text: string): void;
}

export interface AgentRunner {
  run(request: RunRequest, sink: RunSink): Promise<AgentRunResult>;
}

export interface Clock {
  now(): number;
  setTimer(at: number, callback: () => void): { cancel(): void };
}

/**
 * A notification the unit's own statement sends at commit (PostgreSQL NOTIFY): the
 * other processes hear of its events with no round trip more. Its text is `before`,
 * then `{"conversationId", "first", "last"}` (the seqs the events got), then `after`.
 */
export interface CommitNotice {
  channel: string;
  before: string;
  after: string;
}

/** Delivers committed events to connected clients (Socket.IO rooms in the server). */
export interface EventPublisher {
  /** `othersTold`: the unit's statement sent its commitNotice, so the other processes know already */
  publish(events: ConversationEventDTO[], options?: { othersTold?: boolean }): void;
  /** the notice a unit of this conversation sends at commit, or null when no other process listens */
  commitNotice?(conversationId: string): CommitNotice | null;
  /** ephemeral streaming text; never stored, never replayed */
  runDelta(conversationId: string, runId: string, delta: string, options?: { reset?: boolean }): void;
  /** ephemeral status line of a live run (null clears it); never stored, never replayed */
  runStatus?(conversationId: string, runId: string, text: string | null): void;
}
