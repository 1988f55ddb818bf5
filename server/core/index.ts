/**
 * The public API of Baton's pure orchestration core. Nothing here does I/O.
 */
export * from "./types.ts";
export {
  PlanValidationError,
  FormAnswerError,
  IssueCollector,
  MAX_REPORTED_ISSUES,
  type PlanIssue,
  type FormAnswerIssue,
} from "./errors.ts";
export {
  rawPlanSchema,
  rawStepSchema,
  rawAppendedStepsSchema,
  rawWaitForEntrySchema,
  rawBudgetSchema,
  rawForEachSchema,
  type RawPlan,
  type RawStep,
  type RawWaitForEntry,
  type RawBudget,
  type RawForEach,
} from "./plan-schema.ts";
export { validatePlan, validateAppendedSteps, ancestors, type PlanLimits } from "./validate-plan.ts";
export {
  parseTemplateRefs,
  renderTemplate,
  substituteItem,
  type TemplateVariable,
  type TemplateRefs,
  type RenderableStep,
} from "./templates.ts";
export { FENCE_TAG, FENCE_RULE, fenceUntrusted, fenceSource, neutraliseFenceMarkers, containsFenceMarker } from "./fence.ts";
export { isTerminalStep, isSuccessfulEnough, isLiveStep, isTerminalPlan } from "./status.ts";
export { readySteps, nextRetryAt } from "./readiness.ts";
export { hasSettled, isDeadEnd, requirementMet, unreachableBecause, type DependencyView, type DependentView } from "./dependencies.ts";
export { normalizeInput, canShareRuns, stepsSharingRun, liveTwin } from "./single-flight.ts";
export { BUDGET_DECISION_LIMIT, addUsage, planUsage, budgetRefusal } from "./budget.ts";
export { DEFAULT_MAX_RETRIES, HARD_MAX_RETRIES, BASE_BACKOFF_MS, MAX_BACKOFF_MS, retryDelayMs, canRetry } from "./failure-policy.ts";
export { createPlanState, stepStateFromSpec, findStep } from "./plan-state.ts";
export { MAX_FOR_EACH_ITEMS, NO_ITEMS_SUMMARY, forEachItems, collectedSummary, liveChildCounts } from "./for-each.ts";
export { reconcile } from "./reconcile.ts";
export {
  planOutcome,
  resultSteps,
  outcomeReport,
  isReleasedByQuorum,
  notNeededReason,
  recoveredAfterRetry,
  type PlanOutcome,
  type OutcomeReport,
  type MissingStep,
} from "./outcome.ts";
export { RUN_LOST_REASON } from "./reconcile-events.ts";
export { BUDGET_ABORT_REASON } from "./reconcile-dispatch.ts";
export {
  formSpecSchema,
  validateFormAnswer,
  formatFormAnswer,
  maskSecretAnswers,
  secretAnswers,
  MAX_FORM_TEXT_CHARS,
  MAX_FORM_FIELDS,
  type FormValue,
} from "./form-schema.ts";
