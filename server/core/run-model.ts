/**
 * Which model a step's run uses, and why (issue 45, "the right model for each step").
 * Pure: the executor reads the agent, the step and the admin's effort mapping, asks
 * here, and records the answer on the run row (Run.model, Run.modelReason).
 *
 * In order of precedence:
 * - a hedge twin runs on the agent's hedge model (core/hedge.ts decided it);
 * - the one attempt after a failure a stronger model could fix (malformed tool calls,
 *   a rejected plan, a refusal) runs on the agent's escalation model, once per step;
 * - a light or deep step runs on the model the admin mapped that level to;
 * - anything else (standard effort, an unmapped level) runs on the agent's own model.
 */
import { z } from "zod";
import { EFFORT_LEVELS, type Effort, type EscalationCause } from "./types.ts";
import { storableText } from "./text.ts";

/** Why a run is on its model; stored on the run row and shown in the drawer and the bill. */
export const MODEL_REASONS = ["agent", "effort:light", "effort:deep", "escalation", "hedge"] as const;
export type ModelReason = (typeof MODEL_REASONS)[number];

export function isModelReason(value: string): value is ModelReason {
  return (MODEL_REASONS as readonly string[]).includes(value);
}

/** A row's reason as the union; a value no code knows reads as the agent's own model. */
export function modelReasonOf(value: string): ModelReason {
  return isModelReason(value) ? value : "agent";
}

/** The admin's mapping from effort levels to models; standard is always the agent's own. */
export interface EffortModels {
  light?: string;
  deep?: string;
}

/**
 * The mapping as stored and sent: each level a model id, or absent. Text the database
 * can store: a configured provider takes any model name after its prefix, so the model
 * check alone lets NUL or a lone surrogate through to the jsonb write.
 */
export const effortModelsSchema = z.strictObject({
  light: storableText().trim().min(1).max(200).optional(),
  deep: storableText().trim().min(1).max(200).optional(),
});

export interface RunModelInput {
  agentModel: string;
  /** the step's effort; null or undefined: standard */
  effort?: Effort | null;
  effortModels: EffortModels;
  /** the agent's escalation model; null: it never escalates */
  escalationModel: string | null;
  /** why the previous attempt failed, when a stronger model could fix it; null otherwise */
  lastFailure: EscalationCause | null;
  /** an earlier attempt of this step already ran escalated */
  escalatedAlready: boolean;
  /** the run is a hedge twin on this model; null: not a hedge */
  hedge: string | null;
}

export interface RunModel {
  model: string;
  reason: ModelReason;
}

/** The model a run uses and why (see the module comment for the order). */
export function chooseRunModel(input: RunModelInput): RunModel {
  if (input.hedge !== null) return { model: input.hedge, reason: "hedge" };
  if (input.escalationModel !== null && input.lastFailure !== null && !input.escalatedAlready) {
    return { model: input.escalationModel, reason: "escalation" };
  }
  const effort = input.effort ?? "standard";
  if (effort !== "standard") {
    const mapped = input.effortModels[effort];
    if (mapped !== undefined) return { model: mapped, reason: effort === "light" ? "effort:light" : "effort:deep" };
  }
  return { model: input.agentModel, reason: "agent" };
}

/** The effort levels an admin maps (standard is always the agent's own model). */
export const MAPPED_EFFORT_LEVELS = EFFORT_LEVELS.filter((level): level is Exclude<Effort, "standard"> => level !== "standard");
