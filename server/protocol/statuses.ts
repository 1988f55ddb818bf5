/**
 * The core's questions about its status unions, for the browser (which imports only
 * from protocol/): a component asks whether a plan has ended rather than keeping its
 * own list of end states that drifts when the union grows.
 */
export { isTerminalPlan, stepActivity, type StepActivity } from "../core/status.ts";
