/**
 * The raw plan JSON that the commander's create_plan tool and the HTTP API accept
 * (snake_case, as the model writes it). Only the shape is checked here; the rules
 * that relate steps to each other live in validate-plan.ts.
 */
import { z } from "zod";
import { EFFORT_LEVELS, FOR_EACH_FIELDS, ON_FAILURE_POLICIES } from "./types.ts";
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
export const rawBudgetSchema = z
  .strictObject({
    max_tokens: int32().min(1).optional(),
    max_cost: z.number().positive().optional(), // a double column: every finite JSON number fits
  })
  .describe("past this the scheduler stops dispatching and asks the commander");

/**
 * Map the step's input over a list step `from` produced: its files, or the lines of
 * its summary. `from` must be in wait_for (validate-plan checks that relation).
 */
export const rawForEachSchema = z
  .strictObject({
    from: int32().min(1).describe("an upstream step in wait_for whose list this step maps over"),
    field: z.enum(FOR_EACH_FIELDS).describe("its files, or the lines of its summary"),
    max_parallel: int32().min(1).optional(),
  })
  .describe("run this step once per item ({{item}}, {{item_index}} in its input); results are collected in order");

export const rawStepSchema = z.strictObject({
  index: int32().min(1).describe("1-based, in order, never reused"),
  title: storableText().trim().min(1).max(200),
  assignee: storableText().trim().min(1).max(100).describe("an agent handle from the roster (without @), `commander`, or `user`"),
  input: storableText()
    .min(1)
    .describe(
      "the step's instructions; may use {{request}}, {{step_N.output_summary}}, {{step_N.output_files}} (and {{item}}, {{item_index}} in a for_each step)",
    ),
  wait_for: z
    .array(rawWaitForEntrySchema)
    .optional()
    .describe("upstream step indexes (or { step, optional: true } when its failure must not hold this step); default: the previous step"),
  // the upper bound (number of wait_for entries) is relational: validate-plan checks it
  quorum: int32().min(1).optional().describe("start once this many of wait_for succeeded; the rest are released"),
  on_failure: z.enum(ON_FAILURE_POLICIES).optional(),
  max_retries: int32().min(0).max(HARD_MAX_RETRIES).optional(),
  budget: rawBudgetSchema.optional(),
  for_each: rawForEachSchema.optional(),
  effort: z
    .enum(EFFORT_LEVELS)
    .optional()
    .describe(
      "how hard the step is: light for routine work (lookups, formatting, short summaries: may run on a smaller, cheaper model), deep for hard reasoning (design, tricky code, careful analysis: may run on a stronger model); default standard",
    ),
});

/**
 * The plan as the commander's create_plan tool describes it to the model and as the
 * validator accepts it: one object, so what the model is told is what is checked.
 */
export const rawPlanSchema = z.strictObject({
  title: storableText().trim().min(1).max(200),
  max_parallel: int32().min(1).optional().describe("how many steps may run at once; 1 = strictly serial"),
  budget: rawBudgetSchema.optional(),
  steps: z.array(rawStepSchema),
});

/** Steps the commander appends to a running plan. */
export const rawAppendedStepsSchema = z.array(rawStepSchema);

export type RawStep = z.infer<typeof rawStepSchema>;
export type RawWaitForEntry = z.infer<typeof rawWaitForEntrySchema>;
export type RawBudget = z.infer<typeof rawBudgetSchema>;
export type RawForEach = z.infer<typeof rawForEachSchema>;
