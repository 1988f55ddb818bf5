/**
 * What an agent run sees: the system prompt and the first user message.
 *
 * Stable first, for the providers' prompt caches (issue 45): the system prompt holds
 * what every run of the agent shares — its own prompt, its role's guide, its skills, the
 * fence rule — and, for the commander, the conversation's roster last (it changes only
 * when an admin edits the agents), so the roster comes before the conversation's
 * history, not after it. The first user message follows the history: the context a
 * plan's runs share, then the task itself.
 *
 * The sections have fixed headings so that every model — including the offline one,
 * which reads them back with the parsers below — gets the same context: the roster
 * (commander, in the system prompt), the original request and its attachments, the
 * failed step (decisions), and the task.
 */
import { FENCE_RULE, fenceUntrusted, neutraliseFenceMarkers } from "../core/fence.ts";
import type { ArtifactRef, RunRequest } from "../ports/executor.ts";
import { defaultCapabilityTools } from "./tools.ts";

export const SECTION = {
  request: "## Original request",
  attachments: "## Attachments",
  roster: "## Agents in this conversation",
  failedStep: "## Failed step",
  task: "## Your task",
} as const;

const ROLE_GUIDE = {
  commanderChat: [
    "You are the commander of this conversation. Answer directly when one reply is enough.",
    "When the request needs several steps or several agents, call create_plan once with a plan: " +
      "steps with index, title, assignee (an agent handle from the roster, `commander` for synthesis, or `user`), " +
      "input (may use {{request}}, {{step_N.output_summary}}, {{step_N.output_files}}) and wait_for.",
    "Splitting: split only work whose parts have clear inputs, independent outputs and results that can be checked. " +
      "Independent parts run in parallel (no wait_for between them); a part that needs another's result waits for it. " +
      "Keep whole what needs constant coordination, and do not split a small request at all. " +
      "End every fan-out with a step (usually `commander`) that waits for the branches and writes the answer.",
    "Each step's input is all its agent sees, so it states: the objective; the expected output (its form and length); " +
      "the boundaries (what is out of scope, what another step covers); and the sources or tools to use. " +
      "A template reads only steps the step waits for.",
    "Effort: match the number of steps and their depth to the request — one or two steps for a simple question, " +
      "more only for broad research or comparison. Give each step to the agent whose description, skills, tools and model fit it: " +
      "a light model for routing and simple lookups, a strong one for hard analysis or writing.",
  ].join("\n"),
  commanderStep:
    "You are the commander, working on a step of your own plan (usually a synthesis of upstream results). " +
    "Write the answer in markdown.",
  commanderDecision:
    "You are the commander. A step of your plan failed. Call decide once: retry (optionally with new input or assignee), " +
    "skip, abort, or append new steps.",
  subAgent:
    "You are a sub-agent working on one task. Use read_file/write_file for the conversation's files. " +
    "If only a person can give you something, call ask_user with a small form. " +
    "When done, call finish with a one-paragraph summary and the names of files you produced.",
} as const;

export function buildSystemPrompt(request: Pick<RunRequest, "agent" | "purpose"> & { roster?: RunRequest["roster"] }): string {
  const { agent, purpose } = request;
  const guide =
    agent.role === "sub_agent"
      ? ROLE_GUIDE.subAgent
      : purpose.kind === "commander-decision"
        ? ROLE_GUIDE.commanderDecision
        : purpose.kind === "commander-step"
          ? ROLE_GUIDE.commanderStep
          : ROLE_GUIDE.commanderChat;
  const parts = [agent.systemPrompt.trim(), guide];
  if (agent.skills.length > 0) {
    parts.push(["Skills:", ...agent.skills.map((skill) => `- ${skill.trim()}`)].join("\n"));
  }
  parts.push(FENCE_RULE);
  // last: the one part that is the conversation's rather than the agent's
  if (agent.role === "commander" && request.roster && request.roster.length > 0) {
    parts.push(`${SECTION.roster}\n${request.roster.map(renderRosterLine).join("\n")}`);
  }
  return parts.filter((part) => part !== "").join("\n\n");
}

function describeAttachment(attachment: ArtifactRef): string {
  const trust = attachment.untrusted ? ", untrusted" : "";
  // a name is chosen outside too: it may hold text but never a fence marker
  return `- ${neutraliseFenceMarkers(attachment.name)} (${attachment.mediaType}, ${attachment.size} bytes${trust})`;
}

/**
 * One agent of the roster: its handle, name and role on the first line (what the offline
 * model parses back), then what it is for, its skills, tools and model, so the commander
 * can give each step to the agent that fits it.
 */
export function renderRosterLine(member: RunRequest["roster"][number]): string {
  const lines = [`- @${member.handle} — ${member.name} (${member.role === "commander" ? "commander" : "sub-agent"})`];
  const description = member.description?.trim();
  if (description) lines.push(`  what it is for: ${description.replace(/\s+/g, " ")}`);
  if (member.skills && member.skills.length > 0) lines.push(`  skills: ${member.skills.map((skill) => skill.trim()).join("; ")}`);
  if (member.tools !== undefined) {
    const tools = member.tools.length > 0 ? member.tools : defaultCapabilityTools(member.role);
    lines.push(`  tools: ${tools.join(", ")}${member.tools.length === 0 ? " (the defaults)" : ""}`);
  }
  if (member.model) lines.push(`  model: ${member.model}`);
  return lines.join("\n");
}

/** The run's first user message. */
export function buildUserMessage(request: RunRequest): string {
  const { context, task } = buildUserMessageParts(request);
  return context + task;
}

/**
 * The first user message in two parts whose concatenation is the message: the context
 * every run of the same request shares (the request, its attachments, a failed step),
 * ending in a blank line, and the task. The first part is a stable prompt prefix, which
 * providers that cache prompts read from the cache on a plan's later steps.
 */
export function buildUserMessageParts(request: RunRequest): { context: string; task: string } {
  const sections: string[] = [];
  const sameAsRequest = request.input.trim() === request.request.text.trim();
  if (!sameAsRequest) sections.push(`${SECTION.request}\n${request.request.text}`);
  if (request.request.attachments.length > 0) {
    sections.push(`${SECTION.attachments} (read them with read_file)\n${request.request.attachments.map(describeAttachment).join("\n")}`);
  }
  if (request.purpose.kind === "commander-decision") {
    const failed = request.purpose.failedStep;
    // the failure reason can quote model or tool output: data, not instructions
    sections.push(
      `${SECTION.failedStep}\nStep ${failed.index} "${failed.title}" (assignee ${failed.assignee}) was asked:\n${failed.input}\n\nIt failed:\n` +
        fenceUntrusted(failed.failureReason, "failure"),
    );
  }
  const context = sections.length > 0 ? `${sections.join("\n\n")}\n\n` : "";
  return { context, task: `${SECTION.task}\n${request.input}` };
}

/** Reads a section back out of a prompt's text (the offline model's view of its prompt). */
export function readSection(message: string, heading: string): string | null {
  const start = message.indexOf(`${heading}`);
  if (start < 0) return null;
  const bodyStart = message.indexOf("\n", start);
  if (bodyStart < 0) return "";
  // the task is always last and may itself contain anything, so it runs to the end
  const headings = heading === SECTION.task ? [] : Object.values(SECTION).filter((h) => h !== heading);
  let end = message.length;
  for (const other of headings) {
    const at = message.indexOf(`\n\n${other}`, bodyStart);
    if (at >= 0 && at < end) end = at;
  }
  return message.slice(bodyStart + 1, end);
}

export function parseRoster(message: string): RunRequest["roster"] {
  const body = readSection(message, SECTION.roster);
  if (body == null) return [];
  const roster: RunRequest["roster"] = [];
  for (const line of body.split("\n")) {
    const match = /^- @(\S+) — (.*) \((commander|sub-agent)\)$/.exec(line.trim());
    if (match) roster.push({ handle: match[1], name: match[2], role: match[3] === "commander" ? "commander" : "sub_agent" });
  }
  return roster;
}
