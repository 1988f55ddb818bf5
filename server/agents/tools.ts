/**
 * The built-in tools of an agent run, by role, and the allow-list that the
 * runtime (not the prompt) enforces.
 *
 * Tools only record intent in the run's state (a plan, a decision, a finish);
 * the executor decides what it means. `ask_user` has no execute function on
 * purpose: the AI SDK stops the loop at a tool call it cannot run, which is
 * exactly "the run ends blocked".
 */
import { createHash } from "node:crypto";
import { tool, zodSchema, type ToolSet } from "ai";
import { z } from "zod";
import type { RunRequest } from "../ports/executor.ts";
import { rawPlanSchema } from "../core/plan-schema.ts";
import { decisionToolSchema } from "../core/commander-decision.ts";
import { formSpecSchema } from "../core/form-schema.ts";
import { describeFindings, type PlanFinding } from "../core/plan-critic.ts";
import type { ArtifactStore } from "../ports/agents.ts";
import { fenceUntrusted, neutraliseFenceMarkers } from "../core/fence.ts";
import { SecretRedactor } from "./secrets.ts";
import { truncateText } from "../core/text.ts";

/**
 * Injected by the server (see core-plan-validator.ts). It gets the run request
 * too, because which assignees exist depends on the conversation's roster.
 */
export type PlanValidator = (
  raw: unknown,
  request: RunRequest,
) => { ok: true; findings?: readonly PlanFinding[] } | { ok: false; message: string };

/** How many invalid plans go back to the model before the run gives up. */
export const MAX_PLAN_REJECTIONS = 3;
/** Largest file content handed to a model by read_file, in characters. */
export const MAX_READ_CHARS = 60_000;

/** What the tools learned during a run; read by the run loop at the end. */
export interface RunToolState {
  plan?: unknown;
  decision?: unknown;
  finish?: { summary: string; files: string[] };
  planRejections: number;
  lastPlanError?: string;
  /** what the plan critic found in the first valid plan; the commander is shown it once */
  planFindings?: readonly PlanFinding[];
  /** the run has seen outside content, so what it writes is untrusted too */
  tainted: boolean;
  writtenFiles: Set<string>;
}

export function createToolState(untrustedInput: boolean): RunToolState {
  return { planRejections: 0, tainted: untrustedInput, writtenFiles: new Set() };
}

export const BUILTIN_TOOL_NAMES = ["create_plan", "decide", "finish", "ask_user", "read_file", "write_file"] as const;
export type BuiltinToolName = (typeof BUILTIN_TOOL_NAMES)[number];

/**
 * Control tools only report to the executor, so every agent of the role has
 * them for the purposes where they apply; the allow-list governs the tools
 * that reach people, files or the outside world.
 */
export function controlTools(request: Pick<RunRequest, "agent" | "purpose">): BuiltinToolName[] {
  if (request.agent.role === "sub_agent") return ["finish"];
  if (request.purpose.kind === "commander-decision") return ["decide"];
  if (request.purpose.kind === "commander-step") return [];
  return ["create_plan"];
}

/** The role's default capability tools, used when `agent.allowedTools` is empty. */
export function defaultCapabilityTools(role: RunRequest["agent"]["role"]): BuiltinToolName[] {
  return role === "sub_agent" ? ["ask_user", "read_file", "write_file"] : ["read_file"];
}

/**
 * Is this tool allowed for the agent? An empty allow-list means the role's
 * defaults plus every tool of the agent's own MCP servers (configuring a server
 * on an agent is already an admin's choice). A non-empty list is exact, with
 * `server__*` allowing all tools of one MCP server.
 */
export function isToolAllowed(input: { name: string; agent: RunRequest["agent"]; controls: string[]; isMcp: boolean }): boolean {
  const { name, agent, controls, isMcp } = input;
  if (controls.includes(name)) return true;
  if (agent.allowedTools.length === 0) {
    return isMcp || (defaultCapabilityTools(agent.role) as string[]).includes(name);
  }
  if (agent.allowedTools.includes(name)) return true;
  if (isMcp) {
    const server = name.split("__")[0];
    return agent.allowedTools.includes(`${server}__*`);
  }
  return false;
}

export class ToolNotAllowedError extends Error {
  readonly code = "tool-not-allowed";
  constructor(toolName: string, handle: string) {
    super(`Tool "${toolName}" is not allowed for @${handle}. Use only the tools you were given.`);
    this.name = "ToolNotAllowedError";
  }
}

// no absolute path, no "..", no control character or backslash, and no bidirectional embedding,
// override or isolate (it would show people another name and extension than the real one)
// eslint-disable-next-line no-control-regex -- control characters are what a file name must not hold
const FILE_NAME = /^(?!\/)(?!.*(?:^|\/)\.\.(?:\/|$))[^\u0000-\u001f\\\u202a-\u202e\u2066-\u2069]{1,200}$/;

const MEDIA_TYPES: Record<string, string> = {
  md: "text/markdown",
  txt: "text/plain",
  json: "application/json",
  csv: "text/csv",
  html: "text/html",
  ts: "text/typescript",
  js: "text/javascript",
  py: "text/x-python",
  yaml: "application/yaml",
  yml: "application/yaml",
  svg: "image/svg+xml",
};

export function guessMediaType(name: string): string {
  const extension = name.includes(".") ? name.slice(name.lastIndexOf(".") + 1).toLowerCase() : "";
  return MEDIA_TYPES[extension] ?? "text/plain";
}

export interface BuiltinToolDeps {
  request: RunRequest;
  artifacts: ArtifactStore;
  validatePlan?: PlanValidator;
  state: RunToolState;
}

/**
 * Tool input schemas, wrapped once: the AI SDK memoizes each wrapper's JSON schema,
 * so it is not re-derived from zod on every run. The plan, decision and form schemas
 * are the core's own, descriptions included: what the model is told is what is checked.
 */
const INPUT = {
  create_plan: zodSchema(rawPlanSchema),
  decide: zodSchema(decisionToolSchema),
  finish: zodSchema(
    z.object({
      summary: z.string().min(1).describe("one paragraph; this is what downstream steps receive"),
      files: z.array(z.string()).default([]),
    }),
  ),
  ask_user: zodSchema(formSpecSchema),
  read_file: zodSchema(z.object({ name: z.string().optional() })),
  write_file: zodSchema(
    z.object({
      name: z.string().describe("file name, e.g. report.md; folders allowed, no '..'"),
      content: z.string(),
      media_type: z.string().optional(),
    }),
  ),
};

/** Every built-in tool; the run loop passes on only the allowed ones. */
export function createBuiltinTools(deps: BuiltinToolDeps): Record<BuiltinToolName, ToolSet[string]> {
  const { request, artifacts, state } = deps;
  const conversationId = request.conversationId;
  // files are shared with every member: a secret form answer must not land in one
  const secrets = new SecretRedactor(request.resume?.secrets ?? []);

  return {
    create_plan: tool({
      description:
        "Propose the plan for this request (once). Steps run in parallel when their wait_for allows. " +
        "The plan is validated; if it is rejected you get the reasons and may fix it.",
      inputSchema: INPUT.create_plan,
      execute: async (plan) => {
        const verdict = deps.validatePlan ? deps.validatePlan(plan, request) : ({ ok: true } as const);
        if (verdict.ok) {
          const findings = "findings" in verdict ? (verdict.findings ?? []) : [];
          // one chance to fix what would run badly; a second proposal runs as it is
          if (findings.length > 0 && state.planFindings === undefined) {
            state.planFindings = findings;
            throw new Error(
              `Plan reviewed before it runs:\n${describeFindings(findings)}\n` +
                "Fix these and call create_plan again. If a point does not apply, call create_plan again with the same plan and it will run.",
            );
          }
          state.plan = plan;
          return "Plan accepted. The executor will run it; you will be woken for commander steps.";
        }
        state.planRejections += 1;
        state.lastPlanError = verdict.message;
        const left = MAX_PLAN_REJECTIONS - state.planRejections;
        throw new Error(
          `Plan rejected: ${verdict.message}` + (left > 0 ? ` Fix it and call create_plan again (${left} attempt(s) left).` : ""),
        );
      },
    }),

    decide: tool({
      description: "Decide what happens to the failed step: retry (optionally new input/assignee), skip, abort the plan, or append steps.",
      inputSchema: INPUT.decide,
      execute: async (decision) => {
        state.decision = decision;
        return `Decision recorded: ${decision.kind}.`;
      },
    }),

    finish: tool({
      description: "Finish your task: a short summary for the next steps, and the names of files you produced.",
      inputSchema: INPUT.finish,
      execute: async ({ summary, files }) => {
        if (files.length > 0) {
          const known = new Set((await artifacts.list({ conversationId })).map((file) => file.name));
          const missing = files.filter((file) => !known.has(file));
          if (missing.length > 0) throw new Error(`Unknown file(s): ${missing.join(", ")}. Write them with write_file first.`);
        }
        state.finish = { summary, files };
        return "Finished.";
      },
    }),

    ask_user: tool({
      description:
        "Ask a person for something only they can give (a decision, a credential, a preference) with a small form. " +
        "Your run pauses until they answer; the answer comes back as this tool's result. " +
        "Mark a password, token or key `secret: true`: only this run receives it, it is masked for everyone else, " +
        "and it is masked in your own saved history after this run — use it now, never repeat it in your answer or summary.",
      inputSchema: INPUT.ask_user,
      // no execute: see the file comment
    }),

    read_file: tool({
      description: "Read a file of this conversation (uploads and files written by earlier steps). Call with no name to list them.",
      inputSchema: INPUT.read_file,
      execute: async ({ name }) => {
        if (name == null || name === "") {
          const files = await artifacts.list({ conversationId });
          // names can come from tainted runs: text, but never a fence marker
          return files.map((file) => ({
            name: neutraliseFenceMarkers(file.name),
            mediaType: file.mediaType,
            size: file.size,
            untrusted: file.untrusted,
          }));
        }
        const file = await artifacts.read({ conversationId, name });
        if (!file) {
          const names = (await artifacts.list({ conversationId })).map((entry) => entry.name);
          throw new Error(`No file named "${name}". Files: ${names.join(", ") || "(none)"}`);
        }
        let text = new TextDecoder().decode(file.content);
        if (text.length > MAX_READ_CHARS) text = `${truncateText(text, MAX_READ_CHARS)}\n… (truncated, ${text.length} chars in all)`;
        if (!file.record.untrusted) return text;
        state.tainted = true;
        return fenceUntrusted(text, `file:${name}`);
      },
    }),

    write_file: tool({
      description:
        "Write a text file to this conversation (replaces a file of the same name). Mention it in finish.files. " +
        "Everyone in the conversation can read it, so secret answers are masked in it.",
      inputSchema: INPUT.write_file,
      execute: async ({ name, content, media_type }) => {
        if (!FILE_NAME.test(name)) throw new Error(`Invalid file name "${name}"`);
        const bytes = new TextEncoder().encode(secrets.redact(content));
        const record = await artifacts.write({
          conversationId,
          name,
          content: bytes,
          mediaType: media_type ?? guessMediaType(name),
          sha256: createHash("sha256").update(bytes).digest("hex"),
          untrusted: state.tainted,
          producer: {
            runId: request.runId,
            agentHandle: request.agent.handle,
            planId: request.step?.planId,
            stepIndex: request.step?.stepIndex,
          },
        });
        state.writtenFiles.add(name);
        return { name: record.name, size: record.size, sha256: record.sha256 };
      },
    }),
  };
}
