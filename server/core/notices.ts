/**
 * Text the server itself writes into a conversation (a plan's closing message, "nothing
 * to add", "@x is disabled"…) is stored once, in English, in the message's body: the
 * agents read it, search indexes it, the API returns it. Beside the body goes a notice:
 * the same words as data (a catalogue key and its values), which the browser words in
 * the reader's language (`notices.*` in messages/*.json). The keys are a closed list,
 * here; a key a browser does not know (a newer server's) shows the body instead.
 *
 * Layout, as the browser and i18n/notices.test.ts compose it: `said` (an agent's own
 * words, markdown, as written), then the main line, then each `more` line as its own
 * paragraph; a line's `list` items are joined into its `{list}` argument, its `bullets`
 * follow it as a bulleted list. Values are inserted as plain text, never markup: names,
 * titles and reasons (a provider's English sentence stays as it is) alike.
 *
 * The builders below return the English body and its notice together, so the two
 * cannot drift; i18n/notices.test.ts checks that the English catalogue renders each
 * notice to exactly its body. Pure.
 */
import { z } from "zod";
import { COMMANDER_ASSIGNEE, type CommanderDecision, type PlanStatus, type StepState } from "./types.ts";
import { plural } from "./plural.ts";

export const NOTICE_KEYS = [
  // a plan's closing message (executor/closing-message.ts)
  "planEnded",
  "planNothingBeforeStop",
  "planNoResult",
  "planDelivered",
  "planDeliveredStep",
  "planMissingFromResult",
  "planMissing",
  "planMissingStep",
  "planMissingStepUnexplained",
  "planMissingMore",
  "stepRecovered",
  // a run's failure, the commander's decisions and plans
  "failed",
  "decisionDefault",
  "decisionShort",
  "decisionNotApplied",
  "decisionNotAppliedGone",
  "retryNamedOutsider",
  "appendRejected",
  "planInvalid",
  "planAlreadyRunning",
  "planAnnounced",
  "planSubmitted",
  "planRerun",
  // a reply with nothing to say (agents/run-finish.ts)
  "nothingToAdd",
  "nothingToAddAfter",
  "deedPlanStatus",
  "deedReadFile",
  "deedWriteFile",
  "deedUsed",
  // disabled agents
  "agentDisabled",
  "agentDisabledNotStarted",
] as const;
export type NoticeKey = (typeof NOTICE_KEYS)[number];

const KNOWN = new Set<string>(NOTICE_KEYS);
export const isNoticeKey = (key: string): key is NoticeKey => KNOWN.has(key);

export type NoticeValues = Record<string, string | number>;

/** One catalogue message and the values its ICU text takes. */
export interface NoticeItem {
  key: NoticeKey;
  values: NoticeValues;
}

export interface NoticeLine extends NoticeItem {
  /** items joined into the line's `{list}` argument: "a, b" (comma) or "a, b and c" (and) */
  list?: { join: "comma" | "and"; items: NoticeItem[] };
  /** items shown as a bulleted list under the line */
  bullets?: NoticeItem[];
}

export interface Notice extends NoticeLine {
  /** an agent's own words that the notice follows, shown first as written (markdown) */
  said?: string;
  /** more paragraphs after the main line */
  more?: NoticeLine[];
}

/** A server-written message: the English body every reader's copy keeps, and its notice. */
export interface Worded {
  body: string;
  notice: Notice;
}

// ─── The schema a stored or received notice is read with ─────────────────────
// Keys are checked by the reader (isNoticeKey), not here: a stored notice whose key this
// version does not know still parses, and its message shows the body.

const itemSchema = z.object({
  key: z.string().max(100),
  values: z.record(z.string().max(100), z.union([z.string(), z.number()])),
});
const lineSchema = itemSchema.extend({
  list: z.object({ join: z.enum(["comma", "and"]), items: z.array(itemSchema).max(1_000) }).optional(),
  bullets: z.array(itemSchema).max(1_000).optional(),
});
export const noticeSchema = lineSchema.extend({
  said: z.string().optional(),
  more: z.array(lineSchema).max(100).optional(),
});
/** What the wire and a row's JSON hold: a notice whose keys may be unknown to this reader. */
export type StoredNotice = z.infer<typeof noticeSchema>;

/** A row's `notice` column → the notice, or null when there is none or it is not one. */
export function readNotice(value: unknown): StoredNotice | null {
  if (value === null || value === undefined) return null;
  const parsed = noticeSchema.safeParse(value);
  return parsed.success ? parsed.data : null;
}

/** Every key the notice names, its items' included: a reader words it only when it knows them all. */
export function noticeKeys(notice: StoredNotice): string[] {
  const lines = [notice, ...(notice.more ?? [])];
  return lines.flatMap((line) => [
    line.key,
    ...(line.list?.items ?? []).map((item) => item.key),
    ...(line.bullets ?? []).map((item) => item.key),
  ]);
}

// ─── Builders: the English body and its notice, from one place ───────────────

const item = (key: NoticeKey, values: NoticeValues = {}): NoticeItem => ({ key, values });

/** A step's status as the English body says it: "in_progress" → "in progress". */
const statusWords = (status: string) => status.replace("_", " ");

export const notices = {
  failed: (reason: string): Worded => ({ body: `**Failed:** ${reason}`, notice: item("failed", { reason }) }),

  stepRecovered: (step: Pick<StepState, "index" | "title" | "attempts">): Worded => ({
    body: `Step ${step.index} (${step.title}) succeeded on attempt ${step.attempts} after a retry; its earlier failure no longer holds.`,
    notice: item("stepRecovered", { index: step.index, title: step.title, attempt: step.attempts }),
  }),

  /** The commander decided without saying anything. */
  decisionDefault: (stepIndex: number, decision: CommanderDecision["kind"]): Worded => ({
    body: `Decision for step ${stepIndex}: ${decision}.`,
    notice: item("decisionDefault", { index: stepIndex, decision }),
  }),

  /** Someone acted on the step before the commander's decision came: it changed nothing. */
  decisionNotApplied: (input: {
    said: string;
    decision: CommanderDecision["kind"];
    step: Pick<StepState, "index" | "status"> | undefined;
  }): Worded => {
    const state = input.step ? `step ${input.step.index} is already ${statusWords(input.step.status)}` : "the step no longer exists";
    const suffix = input.step
      ? item("decisionNotApplied", { index: input.step.index, status: input.step.status })
      : item("decisionNotAppliedGone");
    const said = input.said || `Decision: ${input.decision}.`;
    return {
      body: `${said}\n\n_Not applied: ${state}; someone acted on it before the commander decided._`,
      notice: input.said ? { ...suffix, said: input.said } : { ...item("decisionShort", { decision: input.decision }), more: [suffix] },
    };
  },

  retryNamedOutsider: (handle: string): Worded => ({
    body: `The retry named @${handle}, who is not in this conversation.`,
    notice: item("retryNamedOutsider", { handle }),
  }),

  appendRejected: (reason: string): Worded => ({
    body: `The appended steps were rejected: ${reason}`,
    notice: item("appendRejected", { reason }),
  }),

  planInvalid: (reason: string): Worded => ({
    body: `I could not make a valid plan: ${reason}`,
    notice: item("planInvalid", { reason }),
  }),

  planAlreadyRunning: (title: string): Worded => ({
    body: `This request is already being worked on in the plan **${title}**.`,
    notice: item("planAlreadyRunning", { title }),
  }),

  /** The commander made a plan and said nothing with it. */
  planAnnounced: (title: string): Worded => ({ body: `Plan: **${title}**`, notice: item("planAnnounced", { title }) }),

  planSubmitted: (title: string, steps: number): Worded => ({
    body: `Plan **${title}** submitted (${plural(steps, "step")})`,
    notice: item("planSubmitted", { title, steps }),
  }),

  planRerun: (input: { name: string; title: string; steps: number; endedAs: PlanStatus }): Worded => ({
    body: `${input.name} re-ran the plan **${input.title}** (${plural(input.steps, "step")}); the earlier run ended ${input.endedAs}.`,
    notice: item("planRerun", { name: input.name, title: input.title, steps: input.steps, status: input.endedAs }),
  }),

  /**
   * A chat reply with no text: what the agent did (the tools it used, in order), or that
   * it has nothing to add.
   */
  nothingToAdd: (toolNames: readonly string[]): Worded => {
    if (toolNames.length === 0) return { body: "I have nothing to add to this.", notice: item("nothingToAdd") };
    const deeds = toolNames.map(deedOf);
    const words = deeds.map((deed) => deed.words);
    const list = words.length === 1 ? words[0] : `${words.slice(0, -1).join(", ")} and ${words.at(-1)}`;
    return {
      body: `I ${list}, and have nothing to add.`,
      notice: { ...item("nothingToAddAfter"), list: { join: "and", items: deeds.map((deed) => deed.item) } },
    };
  },

  /** People asked agents that an admin disabled: a paragraph each. */
  agentsDisabled: (handles: readonly [string, ...string[]]): Worded => {
    const lines = handles.map((handle) => item("agentDisabled", { handle }));
    return {
      body: handles
        .map((handle) => `@${handle} is disabled, so it will not answer. An admin can enable it again in Admin → Agents.`)
        .join("\n\n"),
      notice: { ...lines[0], ...(lines.length > 1 ? { more: lines.slice(1) } : {}) },
    };
  },

  /** An admin disabled an agent while requests (no plan's) waited for it. */
  agentDisabledNotStarted: (handle: string, count: number): Worded => ({
    body: `@${handle} is disabled: ${count === 1 ? "a request waiting for it was" : `${count} requests waiting for it were`} not started.`,
    notice: item("agentDisabledNotStarted", { handle, count }),
  }),
};

/** How a tool the agent used reads in a sentence. */
function deedOf(toolName: string): { words: string; item: NoticeItem } {
  switch (toolName) {
    case "plan_status":
      return { words: "looked at the plan's progress", item: item("deedPlanStatus") };
    case "read_file":
      return { words: "read the conversation's files", item: item("deedReadFile") };
    case "write_file":
      return { words: "wrote a file", item: item("deedWriteFile") };
    default: {
      const tool = toolName.replace(/__/g, " → ");
      return { words: `used ${tool}`, item: item("deedUsed", { tool }) };
    }
  }
}

/** Who a step's assignee is, as the closing message names it. */
export const assigneeWords = (assignee: string) => (assignee === COMMANDER_ASSIGNEE ? "the commander" : `@${assignee}`);
export { statusWords };
