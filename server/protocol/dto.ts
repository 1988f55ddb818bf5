/**
 * Shapes that cross the wire (REST responses, Socket.IO payloads, replayed events).
 * The browser imports these as types only.
 */
import type { FormSpec, PlanStatus, StepStatus, OnFailure } from "../core/types.ts";

export interface MentionDTO {
  agentId: string;
  handle: string;
}

export interface AttachmentDTO {
  id: string;
  name: string;
  mediaType: string;
  size: number;
  untrusted: boolean;
}

export interface MessageDTO {
  id: string;
  conversationId: string;
  authorKind: "user" | "agent" | "system";
  author: { id: string; name: string; handle?: string; role?: "commander" | "sub_agent" } | null;
  /** outcome: the commander closing a plan, or correcting an earlier message by what happened */
  kind: "text" | "dispatch" | "result" | "form" | "decision" | "plan" | "error" | "outcome";
  body: string;
  mentions: MentionDTO[];
  planId: string | null;
  stepId: string | null;
  runId: string | null;
  formId: string | null;
  attachments: AttachmentDTO[];
  createdAt: string;
  /** the author changed the body after sending it */
  editedAt: string | null;
  /** the author deleted it: body, mentions and attachments are empty (a tombstone) */
  deletedAt: string | null;
}

export interface UsageDTO {
  tokensIn: number;
  tokensOut: number;
  cost: number;
}

export interface StepDTO {
  id: string;
  index: number;
  title: string;
  assignee: string;
  input: string;
  waitFor: number[];
  /** the dependencies in waitFor whose failure does not hold this step */
  optionalWaitFor: number[];
  /** ready once this many dependencies succeeded (null: all) */
  quorum: number | null;
  /** a for_each step: mapped over step `from`'s list; once expanded, the steps it fanned out to */
  forEach: { from: number; field: "output_files" | "output_lines"; maxParallel: number | null; children: number[] } | null;
  /** set on a step a for_each step fanned out to */
  parentIndex: number | null;
  onFailure: OnFailure;
  maxRetries: number;
  status: StepStatus;
  attempts: number;
  /** transient failures in the current retry budget (0 after a decided retry) */
  transientFailures: number;
  renderedInput: string | null;
  outputSummary: string | null;
  outputFiles: string[];
  failureReason: string | null;
  decisionPending: boolean;
  retryAt: string | null;
  startedAt: string | null;
  endedAt: string | null;
  /** summed over the step's runs; present where the server computed it (plan reads) */
  usage?: UsageDTO;
}

export interface PlanDTO {
  id: string;
  conversationId: string;
  title: string;
  status: PlanStatus;
  maxParallel: number;
  request: string;
  createdAt: string;
  endedAt: string | null;
  steps: StepDTO[];
  /** summed over every run of the plan (steps and commander decisions) */
  usage?: UsageDTO;
}

export interface RunDTO {
  id: string;
  conversationId: string;
  agentHandle: string | null;
  planId: string | null;
  stepIndex: number | null;
  kind: string;
  attempt: number;
  status: "queued" | "running" | "succeeded" | "failed" | "blocked" | "cancelled" | "lost";
  model: string;
  startedAt: string | null;
  endedAt: string | null;
  error: string | null;
  tokensIn: number;
  tokensOut: number;
  cost: number;
}

export interface FormDTO {
  id: string;
  conversationId: string;
  planId: string | null;
  stepIndex: number | null;
  spec: FormSpec;
  status: "open" | "answered" | "cancelled";
  answer: { by: { id: string; name: string }; values: Record<string, unknown>; at: string } | null;
}
