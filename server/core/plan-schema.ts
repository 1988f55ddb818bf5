/**
 * The raw plan JSON that the commander's create_plan tool and the HTTP API accept
 * (snake_case, as the model writes it). Only the shape is checked here; the rules
 * that relate steps to each other live in validate-plan.ts.
 */
import { z } from "zod";
import { FOR_EACH_FIELDS, ON_FAILURE_POLICIES } from "./types.ts";
import { HARD_MAX_RETRIES } from "./failure-policy.ts";
import { int32, storableText } from "./text.ts";

// strict objects: a misspelt key ("waitFor", "depends_on") must be an error, not a
// silently applied default that runs the step at the wrong time

/**
 * A wait_for entry: a bare index is a required dependency (the common case, and all
 * that older plans contain); the object form can mark the edge optional.
 */
export const rawWaitForEntrySchema = z.union(
  [int32().min(1), z.strictObject({ step: int32().min(1), optional: z.boolean().optional() })],
  // the default union message ("Invalid input") would not tell the model what to write
  { error: 'each entry must be a step index (1, 2, ...) or { "step": N, "optional": true }' },
);

/** Token and cost limits; both optional, both strictly positive (a zero budget could never dispatch). */
export const rawBudgetSchema = z.strictObject({
  max_tokens: int32().min(1).optional(),
  max_cost: z.number().positive().optional(), // a double column: every finite JSON number fits
});

/**
 * Map the step's input over a list step `from` produced: its files, or the lines of
 * its summary. `from` must be in wait_for (validate-plan checks that relation).
 */
export const rawForEachSchema = z.strictObject({
  from: int32().min(1),
  field: z.enum(FOR_EACH_FIELDS),
  max_parallel: int32().min(1).optional(),
});

export const rawStepSchema = z.strictObject({
  index: int32().min(1),
  title: storableText().trim().min(1).max(200),
  assignee: storableText().trim().min(1).max(100),
  input: storableText().min(1),
  wait_for: z.array(rawWaitForEntrySchema).optional(),
  // the upper bound (number of wait_for entries) is relational: validate-plan checks it
  quorum: int32().min(1).optional(),
  on_failure: z.enum(ON_FAILURE_POLICIES).optional(),
  max_retries: int32().min(0).max(HARD_MAX_RETRIES).optional(),
  budget: rawBudgetSchema.optional(),
  for_each: rawForEachSchema.optional(),
});

export const rawPlanSchema = z.strictObject({
  title: storableText().trim().min(1).max(200),
  max_parallel: int32().min(1).optional(),
  budget: rawBudgetSchema.optional(),
  steps: z.array(rawStepSchema),
});

/** Steps the commander appends to a running plan. */
export const rawAppendedStepsSchema = z.array(rawStepSchema);

export type RawStep = z.infer<typeof rawStepSchema>;
export type RawWaitForEntry = z.infer<typeof rawWaitForEntrySchema>;
export type RawBudget = z.infer<typeof rawBudgetSchema>;
export type RawForEach = z.infer<typeof rawForEachSchema>;
