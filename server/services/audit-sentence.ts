/**
 * An audit event as one plain sentence ("Ana added Bo to “launch”"): names, not ids.
 * The raw record stays one click away, under the row's "details".
 */
import { isAuditAction, type AuditAction, type AuditEventDTO } from "../access/audit.ts";

type Detail = Record<string, unknown>;

const text = (value: unknown, fallback: string) => (typeof value === "string" && value !== "" ? value : fallback);
const quoted = (value: string) => `“${value}”`;
const article = (role: string) => (/^[aeiou]/i.test(role) ? `an ${role}` : `a ${role}`);

function who(event: AuditEventDTO): string {
  if (!event.actor) return "Baton";
  return event.actorKind === "token" ? `${event.actor.name} (through an API token)` : event.actor.name;
}

function whom(event: AuditEventDTO, detail: Detail): string {
  if (event.target.kind === "agent") return `@${text(detail.handle, event.target.label?.replace(/^@/, "") ?? "an agent")}`;
  return event.target.name ?? event.target.label ?? "someone";
}

const stepOf = (detail: Detail) => (typeof detail.stepIndex === "number" ? `step ${detail.stepIndex}` : "a step");

const where = (event: AuditEventDTO) => (event.conversation ? quoted(event.conversation.title) : "a conversation");

/** One required sentence per action: a new action is a compile error here until it reads well. */
const SENTENCES: Record<AuditAction, (event: AuditEventDTO, detail: Detail) => string> = {
  "member.added": (event, detail) => `${who(event)} added ${whom(event, detail)} to ${where(event)}`,
  "member.removed": (event, detail) => `${who(event)} removed ${whom(event, detail)} from ${where(event)}`,
  "member.left": (event) => `${who(event)} left ${where(event)}`,
  "member.role_changed": (event, detail) =>
    `${who(event)} made ${whom(event, detail)} ${article(text(detail.to, "member"))} of ${where(event)}` +
    (typeof detail.from === "string" ? ` (was ${article(detail.from)})` : ""),
  "agent.added": (event, detail) => `${who(event)} added ${whom(event, detail)} to ${where(event)}`,
  "agent.removed": (event, detail) => `${who(event)} removed ${whom(event, detail)} from ${where(event)}`,
  "agent.created": (event, detail) => `${who(event)} created the agent ${whom(event, detail)}`,
  "agent.updated": (event, detail) => `${who(event)} edited the agent ${whom(event, detail)}`,
  "agent.disabled": (event, detail) => `${who(event)} disabled the agent ${whom(event, detail)}`,
  "agent.enabled": (event, detail) => `${who(event)} enabled the agent ${whom(event, detail)} again`,
  "agent.deleted": (event, detail) => `${who(event)} deleted the agent ${whom(event, detail)}`,
  "invitation.created": (event, detail) => `${who(event)} invited ${text(detail.email, "someone")} to ${where(event)}`,
  "invitation.accepted": (event, detail) => `${whom(event, detail)} joined ${where(event)} through an invitation`,
  "invitation.declined": (event) => `${who(event)} declined the invitation to ${where(event)}`,
  "invitation.revoked": (event, detail) => `${who(event)} withdrew the invitation of ${text(detail.email, "someone")} to ${where(event)}`,
  "invite.created": (event, detail) => `${who(event)} created an invite link for ${article(text(detail.role, "member"))}`,
  "invite.used": (event, detail) => `${who(event)} signed up through an invite link as ${article(text(detail.role, "member"))}`,
  "invite.revoked": (event, detail) => `${who(event)} revoked an invite link for ${article(text(detail.role, "member"))}`,
  "token.created": (event, detail) => `${who(event)} created the API token ${quoted(text(detail.name, "unnamed"))}`,
  "token.revoked": (event, detail) => `${who(event)} revoked the API token ${quoted(text(detail.name, "unnamed"))}`,
  "conversation.renamed": (event, detail) =>
    `${who(event)} renamed ${quoted(text(detail.from, "a conversation"))} to ${quoted(text(detail.to, "?"))}`,
  "conversation.archived": (event) => `${who(event)} archived ${where(event)}`,
  "conversation.unarchived": (event) => `${who(event)} brought ${where(event)} back from the archive`,
  "conversation.deleted": (event, detail) =>
    `${who(event)} deleted ${quoted(text(detail.title, event.conversation?.title ?? "a conversation"))}`,
  "plan.accepted": (event, detail) =>
    `${who(event)} accepted a plan's result: fast-forwarded ${text(detail.name, text(detail.branch, "the base branch"))}` +
    (typeof detail.to === "string" ? ` to ${detail.to.slice(0, 8)}` : "") +
    (event.conversation ? ` from ${where(event)}` : ""),
  "plan.step_stopped": (event, detail) =>
    `${who(event)} stopped ${stepOf(detail)} of the plan ${quoted(text(detail.title, "untitled"))} in ${where(event)}`,
  "plan.reopened": (event, detail) =>
    `${who(event)} reopened the ended plan ${quoted(text(detail.title, "untitled"))} in ${where(event)} to retry ${stepOf(detail)}`,
  "plan.rerun": (event, detail) => `${who(event)} re-ran the ended plan ${quoted(text(detail.title, "untitled"))} in ${where(event)}`,
};

export function auditSentence(event: AuditEventDTO): string {
  const detail = event.detail && typeof event.detail === "object" ? (event.detail as Detail) : {};
  // an action recorded by an older or newer version still reads as something
  if (!isAuditAction(event.action)) return `${who(event)}: ${event.action}`;
  return `${SENTENCES[event.action](event, detail)}.`;
}
