/**
 * An audit event as one plain sentence ("Ana added Bo to “launch”"): names, not ids.
 * The raw record stays one click away, under the row's "details".
 *
 * The server decides what a sentence says (a message key per action and its values);
 * the page words it in the reader's language (messages/*.json, `admin.audit.sentence.*`),
 * so an admin reading Baton in Chinese reads the log in Chinese.
 */
import { isAuditAction, type AuditAction, type AuditEventDTO } from "../access/audit.ts";

type Detail = Record<string, unknown>;

/** The roles a sentence names: a conversation's (owner, member) or Baton's (admin, member). */
const ROLES = ["owner", "admin", "member"] as const;
type AuditRole = (typeof ROLES)[number];

/** Words the reader's language supplies where the record has no name (`admin.audit.fallback.*`). */
export type AuditFallback = "someone" | "anAgent" | "aConversation" | "unnamed" | "baseBranch" | "agentsOwnModel";

/**
 * One value of a sentence: a plain string goes in as written (a name, an email, a commit,
 * or a select's case such as "yes"); the tagged ones are worded by the reader's language.
 */
export type AuditValue =
  | string
  /** a title or token name, in the reader's quotation marks */
  | { quoted: string }
  /** a role, with the article English needs ("an owner") */
  | { role: AuditRole }
  /** a person acting through one of their API tokens */
  | { throughToken: string }
  | { fallback: AuditFallback };

export type AuditSentenceKey = AuditAction | "unknown";

export interface AuditSentence {
  key: AuditSentenceKey;
  values: Record<string, AuditValue>;
}

const text = (value: unknown): string | undefined => (typeof value === "string" && value !== "" ? value : undefined);
const role = (value: unknown): AuditValue => {
  const known = ROLES.find((candidate) => candidate === value);
  return known ? { role: known } : { role: "member" };
};
const yes = (condition: boolean) => (condition ? "yes" : "no");

function who(event: AuditEventDTO): AuditValue {
  if (!event.actor) return "Baton";
  return event.actorKind === "token" ? { throughToken: event.actor.name } : event.actor.name;
}

function whom(event: AuditEventDTO, detail: Detail): AuditValue {
  if (event.target.kind === "agent") {
    const handle = text(detail.handle) ?? text(event.target.label?.replace(/^@/, ""));
    return handle ? `@${handle}` : { fallback: "anAgent" };
  }
  return text(event.target.name) ?? text(event.target.label) ?? { fallback: "someone" };
}

const titled = (title: string | undefined): AuditValue => (title ? { quoted: title } : { fallback: "aConversation" });
const where = (event: AuditEventDTO) => titled(event.conversation?.title);
const email = (detail: Detail): AuditValue => text(detail.email) ?? { fallback: "someone" };
const tokenName = (detail: Detail): AuditValue => {
  const name = text(detail.name);
  return name ? { quoted: name } : { fallback: "unnamed" };
};

type Values = (event: AuditEventDTO, detail: Detail) => Record<string, AuditValue>;
const actorAndTarget: Values = (event, detail) => ({ who: who(event), whom: whom(event, detail), where: where(event) });
const actorAndAgent: Values = (event, detail) => ({ who: who(event), whom: whom(event, detail) });
const actorAndPlace: Values = (event) => ({ who: who(event), where: where(event) });
/** A member's control on a plan: the plan by its title, in its conversation. */
const actorAndPlan: Values = (event, detail) => {
  const title = text(detail.title);
  return { who: who(event), title: title ? { quoted: title } : { fallback: "unnamed" }, where: where(event) };
};
const stepOf = (detail: Detail) => ({
  hasStep: yes(typeof detail.stepIndex === "number"),
  step: typeof detail.stepIndex === "number" ? String(detail.stepIndex) : "",
});
const actorAndRole: Values = (event, detail) => ({ who: who(event), role: role(detail.role) });

/**
 * One required sentence per action: a new action is a compile error here until it has
 * values, and on the page until both languages have its message.
 */
const SENTENCES: Record<AuditAction, Values> = {
  "member.added": actorAndTarget,
  "member.removed": actorAndTarget,
  "member.left": actorAndPlace,
  "member.role_changed": (event, detail) => ({
    ...actorAndTarget(event, detail),
    role: role(detail.to),
    hadRole: yes(typeof detail.from === "string"),
    was: role(detail.from),
  }),
  "agent.added": actorAndTarget,
  "agent.removed": actorAndTarget,
  "agent.created": actorAndAgent,
  "agent.updated": actorAndAgent,
  "agent.disabled": actorAndAgent,
  "agent.enabled": actorAndAgent,
  "agent.deleted": actorAndAgent,
  "invitation.created": (event, detail) => ({ ...actorAndPlace(event, detail), email: email(detail) }),
  "invitation.accepted": (event, detail) => ({ whom: whom(event, detail), where: where(event) }),
  "invitation.declined": actorAndPlace,
  "invitation.revoked": (event, detail) => ({ ...actorAndPlace(event, detail), email: email(detail) }),
  "invite.created": actorAndRole,
  "invite.used": actorAndRole,
  "invite.revoked": actorAndRole,
  "token.created": (event, detail) => ({ who: who(event), name: tokenName(detail) }),
  "token.revoked": (event, detail) => ({ who: who(event), name: tokenName(detail) }),
  "conversation.renamed": (event, detail) => ({
    who: who(event),
    from: titled(text(detail.from)),
    to: { quoted: text(detail.to) ?? "?" },
  }),
  "conversation.archived": actorAndPlace,
  "conversation.unarchived": actorAndPlace,
  "conversation.deleted": (event, detail) => ({ who: who(event), where: titled(text(detail.title) ?? event.conversation?.title) }),
  "plan.accepted": (event, detail) => ({
    who: who(event),
    branch: text(detail.name) ?? text(detail.branch) ?? { fallback: "baseBranch" },
    hasCommit: yes(typeof detail.to === "string"),
    commit: typeof detail.to === "string" ? detail.to.slice(0, 8) : "",
    hasConversation: yes(event.conversation !== null),
    where: where(event),
  }),
  "plan.stopped": (event, detail) => actorAndPlan(event, detail),
  "plan.step_stopped": (event, detail) => ({ ...actorAndPlan(event, detail), ...stepOf(detail) }),
  "plan.reopened": (event, detail) => ({ ...actorAndPlan(event, detail), ...stepOf(detail) }),
  "plan.rerun": (event, detail) => actorAndPlan(event, detail),
  "workspace.effort_models_changed": (event, detail) => ({
    who: who(event),
    light: text(detail.light) ?? { fallback: "agentsOwnModel" },
    deep: text(detail.deep) ?? { fallback: "agentsOwnModel" },
  }),
};

/** What the event's sentence says: its message key and values, in no language yet. */
export function auditSentence(event: AuditEventDTO): AuditSentence {
  const detail = event.detail && typeof event.detail === "object" ? (event.detail as Detail) : {};
  // an action recorded by an older or newer version still reads as something
  if (!isAuditAction(event.action)) return { key: "unknown", values: { who: who(event), action: event.action } };
  return { key: event.action, values: SENTENCES[event.action](event, detail) };
}

/**
 * The `admin.audit` messages a sentence needs. next-intl's translator for that namespace
 * fits it, so a key missing from the catalogue is a compile error where it is passed.
 */
export type AuditTranslate = (
  key: `sentence.${AuditSentenceKey}` | "quoted" | "role" | "throughToken" | `fallback.${AuditFallback}`,
  values?: Record<string, string>,
) => string;

/** The sentence in the language of `t` (the reader's). */
export function renderAuditSentence(sentence: AuditSentence, t: AuditTranslate): string {
  const word = (value: AuditValue): string => {
    if (typeof value === "string") return value;
    if ("quoted" in value) return t("quoted", { text: value.quoted });
    if ("role" in value) return t("role", { role: value.role });
    if ("throughToken" in value) return t("throughToken", { name: value.throughToken });
    return t(`fallback.${value.fallback}`);
  };
  const values = Object.fromEntries(Object.entries(sentence.values).map(([name, value]) => [name, word(value)]));
  return t(`sentence.${sentence.key}`, values);
}
