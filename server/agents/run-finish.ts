/**
 * The two ends of a run: the tools it may call (buildToolSet) and what it reports
 * when the model stops (finishRun).
 */
import type { ToolSet } from "ai";
import type { AgentRunResult, Usage } from "../ports/executor.ts";
import type { McpSession } from "./mcp.ts";
import type { AgentRunnerDeps, RunContext } from "./run-context.ts";
import { findPendingAskUser } from "./session.ts";
import { createPlanStatusTool } from "./plan-status.ts";
import { BUILTIN_TOOL_NAMES, controlTools, createBuiltinTools, isToolAllowed, MAX_PLAN_REJECTIONS } from "./tools.ts";
import { truncateText } from "../core/text.ts";
import { notices, type Worded } from "../core/notices.ts";

/** Length of a summary taken from the final text when the agent did not call finish. */
export const TEXT_SUMMARY_CHARS = 300;
/** Malformed tool-call arguments go back to the model this many times to fix. */
export const MAX_MALFORMED_TOOL_CALLS = 1;

export function summaryFromText(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return truncateText(flat, TEXT_SUMMARY_CHARS, { ellipsis: "…" });
}

/** The allowed tools; every other known tool is refused by name in repairToolCall. */
export function buildToolSet(input: { ctx: RunContext; deps: AgentRunnerDeps; mcp: McpSession | null }): ToolSet {
  const { ctx, deps, mcp } = input;
  const { request } = ctx;
  const controls = controlTools(request);
  const builtins = createBuiltinTools({ request, artifacts: deps.artifacts, validatePlan: deps.validatePlan, state: ctx.tools });
  const controlNames = new Set(["create_plan", "decide", "finish"]);
  const tools: ToolSet = {};
  for (const name of BUILTIN_TOOL_NAMES) {
    // control tools come only from the role and purpose, never from the allow-list
    if (controlNames.has(name) && !controls.includes(name)) continue;
    if (isToolAllowed({ name, agent: request.agent, controls, isMcp: false })) tools[name] = builtins[name];
  }
  // the commander looks at its plans before it decides (read-only, its own conversation)
  if (request.agent.role === "commander" && deps.plans) tools.plan_status = createPlanStatusTool({ request, reader: deps.plans });
  if (mcp) {
    const allowed = mcp.tools.filter((t) => isToolAllowed({ name: t.name, agent: request.agent, controls, isMcp: true }));
    Object.assign(
      tools,
      mcp.toolSet(
        allowed.map((t) => t.name),
        () => (ctx.tools.tainted = true),
      ),
    );
  }
  Object.assign(tools, deps.extraTools?.(request)); // workspace: slot tools (server/workspace)
  return tools;
}

/**
 * What a chat reply says when the model returned no text and recorded nothing for the
 * executor to announce: what it did, or that it has nothing to add. A person who asked
 * something always sees an answer (a plan, a decision and a finish speak for themselves).
 */
export function silentReply(ctx: Pick<RunContext, "request" | "messages" | "tools">): Worded | null {
  const { request, tools } = ctx;
  if (request.step != null || tools.plan != null || tools.decision != null || tools.finish != null) return null;
  const used = new Set<string>();
  for (const message of ctx.messages) {
    if (message.role !== "assistant" || typeof message.content === "string") continue;
    for (const part of message.content) if (part.type === "tool-call") used.add(part.toolName);
  }
  return notices.nothingToAdd([...used]);
}

export function finishRun(ctx: RunContext, usage: () => Usage): AgentRunResult {
  const { tools, sink } = ctx;
  const text = ctx.steps
    .map((step) => step.text.trim())
    .filter((t) => t !== "")
    .join("\n\n");
  if (tools.planRejections >= MAX_PLAN_REJECTIONS && tools.plan == null) {
    const reason = `the plan was rejected ${tools.planRejections} times: ${tools.lastPlanError ?? "invalid plan"}`;
    sink.log({ phase: "run-failed", message: reason });
    return { kind: "failed", transient: false, reason, cause: "plan-rejected", usage: usage() };
  }
  if (ctx.malformedToolCalls > MAX_MALFORMED_TOOL_CALLS && tools.finish == null) {
    const reason = `the model sent malformed tool-call arguments ${ctx.malformedToolCalls} times`;
    sink.log({ phase: "run-failed", message: reason });
    return { kind: "failed", transient: false, reason, cause: "malformed-tool-calls", usage: usage() };
  }
  if (ctx.refused && tools.finish == null && tools.plan == null && tools.decision == null) {
    const reason = "the provider's content filter refused the model's output";
    sink.log({ phase: "run-failed", message: reason });
    return { kind: "failed", transient: false, reason, cause: "refused", usage: usage() };
  }
  const pending = tools.finish == null ? findPendingAskUser(ctx.messages) : null;
  if (pending) {
    ctx.blocked = true;
    sink.log({ phase: "blocked", message: pending.form.title, data: pending.form });
    return { kind: "blocked", form: pending.form, text, usage: usage() };
  }
  if (ctx.steps.length > 0 && tools.finish == null && tools.plan == null && tools.decision == null) {
    sink.log({ phase: "run-end", message: "ended without finish: summary taken from the final text" });
  }
  // a model that answers only by calling finish (common with OpenAI models) still says something
  const said = text || tools.finish?.summary?.trim() || "";
  const silent = said ? null : silentReply(ctx);
  return {
    kind: "ok",
    text: silent?.body ?? said,
    ...(silent ? { notice: silent.notice } : {}),
    summary:
      tools.finish?.summary ??
      summaryFromText(
        ctx.steps
          .map((step) => step.text)
          .filter((t) => t.trim() !== "")
          .at(-1) ?? "",
      ),
    files: tools.finish?.files ?? [...tools.writtenFiles],
    untrusted: tools.tainted,
    ...(tools.plan != null ? { plan: tools.plan } : {}),
    ...(tools.decision != null ? { decision: tools.decision } : {}),
    usage: usage(),
  };
}
