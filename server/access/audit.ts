/**
 * The audit log: who changed membership, roles, agents, invites or tokens, when, and
 * to whom. Written in the same transaction as the change it records (pass `tx`), read
 * by admins only — the read checks the role itself, whatever page calls it.
 */
import type { Prisma, PrismaClient } from "../generated/prisma/client.ts";
import { BatonError } from "../protocol/errors.ts";

export const AUDIT_ACTIONS = [
  "member.added",
  "member.removed",
  "member.left",
  "member.role_changed",
  "agent.added",
  "agent.removed",
  /** an admin created or edited an agent itself (detail: handle, model) */
  "agent.created",
  "agent.updated",
  /** an admin disabled, enabled again or deleted an agent (detail: handle; deleted: name, model) */
  "agent.disabled",
  "agent.enabled",
  "agent.deleted",
  "invitation.created",
  "invitation.accepted",
  "invitation.declined",
  "invitation.revoked",
  "invite.created",
  "invite.used",
  "invite.revoked",
  "token.created",
  "token.revoked",
  "conversation.renamed",
  "conversation.archived",
  "conversation.unarchived",
  "conversation.deleted",
  /** a plan's result fast-forwarded onto a repository's base branch (detail: branch, from, to) */
  "plan.accepted",
  /** a member stopped a whole plan: its open steps skipped, its live runs cancelled (detail: title) */
  "plan.stopped",
  /** a member stopped one step of a plan (detail: title, stepIndex) */
  "plan.step_stopped",
  /** a member's retry brought an ended plan back to running (detail: title, stepIndex) */
  "plan.reopened",
  /** a member re-ran an ended plan as a new one (detail: title, rerunId) */
  "plan.rerun",
  /** an admin set the models the effort levels run on (detail: light, deep; null: the agent's own) */
  "workspace.effort_models_changed",
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export const isAuditAction = (action: string): action is AuditAction => (AUDIT_ACTIONS as readonly string[]).includes(action);

/** What the audit log's "kind" filter offers: the part of an action before its dot. */
export const AUDIT_KINDS = ["member", "agent", "invitation", "invite", "token", "conversation", "plan", "workspace"] as const;
export type AuditKind = (typeof AUDIT_KINDS)[number];

export interface AuditActor {
  id: string;
  role: "admin" | "member";
  /** a person in the browser, or an API token acting as that user */
  kind?: "user" | "token";
}

export interface AuditEntry {
  actor: AuditActor | null;
  action: AuditAction;
  conversationId?: string | null;
  target: {
    kind: "user" | "agent" | "invitation" | "invite" | "token" | "conversation" | "repository" | "plan" | "workspace";
    id: string;
  };
  detail?: Record<string, string | number | boolean | null>;
}

type Db = PrismaClient | Prisma.TransactionClient;

export async function recordAudit(db: Db, entry: AuditEntry): Promise<void> {
  await db.auditEvent.create({
    data: {
      actorId: entry.actor?.id ?? null,
      actorKind: entry.actor ? (entry.actor.kind ?? "user") : "system",
      action: entry.action,
      conversationId: entry.conversationId ?? null,
      targetKind: entry.target.kind,
      targetId: entry.target.id,
      detail: entry.detail ?? {},
    },
  });
}

export interface AuditEventDTO {
  id: string;
  at: string;
  actor: { id: string; name: string; email: string } | null;
  actorKind: string;
  action: string;
  conversation: { id: string; title: string } | null;
  /** label: an email, @handle or name; name: the person's or agent's name where there is one */
  target: { kind: string; id: string; label: string | null; name: string | null };
  detail: unknown;
}

export const AUDIT_PAGE_SIZE = 100;

export interface AuditFilter {
  /** who did it (a user id) */
  actorId?: string;
  kind?: AuditKind;
  /** from this instant (inclusive) to that one (exclusive) */
  from?: Date;
  to?: Date;
}

/** Newest first, `before` an id for the next page. Admins only: checked here, at the data. */
export async function listAuditEvents(
  prisma: PrismaClient,
  {
    actor,
    before,
    conversationId,
    filter = {},
  }: { actor: AuditActor | null; before?: string; conversationId?: string; filter?: AuditFilter },
): Promise<AuditEventDTO[]> {
  if (actor?.role !== "admin") throw new BatonError("forbidden", "Admins only.");
  const cursor = before && /^\d{1,18}$/.test(before) ? BigInt(before) : undefined;
  const rows = await prisma.auditEvent.findMany({
    where: {
      ...(cursor ? { id: { lt: cursor } } : {}),
      ...(conversationId ? { conversationId } : {}),
      ...(filter.actorId ? { actorId: filter.actorId } : {}),
      ...(filter.kind ? { action: { startsWith: `${filter.kind}.` } } : {}),
      ...(filter.from || filter.to
        ? { at: { ...(filter.from ? { gte: filter.from } : {}), ...(filter.to ? { lt: filter.to } : {}) } }
        : {}),
    },
    orderBy: { id: "desc" },
    take: AUDIT_PAGE_SIZE,
  });
  const userIds = new Set<string>();
  const agentIds = new Set<string>();
  const conversationIds = new Set<string>();
  for (const row of rows) {
    if (row.actorId) userIds.add(row.actorId);
    if (row.targetKind === "user") userIds.add(row.targetId);
    if (row.targetKind === "agent") agentIds.add(row.targetId);
    if (row.conversationId) conversationIds.add(row.conversationId);
  }
  const [users, agents, conversations] = await Promise.all([
    prisma.user.findMany({ where: { id: { in: [...userIds] } }, select: { id: true, name: true, email: true } }),
    prisma.agent.findMany({ where: { id: { in: [...agentIds] } }, select: { id: true, handle: true, name: true } }),
    prisma.conversation.findMany({ where: { id: { in: [...conversationIds] } }, select: { id: true, title: true } }),
  ]);
  const userById = new Map(users.map((user) => [user.id, user]));
  const agentById = new Map(agents.map((agent) => [agent.id, agent]));
  const conversationById = new Map(conversations.map((conversation) => [conversation.id, conversation]));
  return rows.map((row) => {
    const detail = (row.detail ?? {}) as Record<string, unknown>;
    const label =
      row.targetKind === "user"
        ? (userById.get(row.targetId)?.email ?? null)
        : row.targetKind === "agent"
          ? agentById.get(row.targetId)
            ? `@${agentById.get(row.targetId)!.handle}`
            : null
          : typeof detail.email === "string"
            ? detail.email
            : typeof detail.name === "string"
              ? detail.name
              : null;
    return {
      id: row.id.toString(),
      at: row.at.toISOString(),
      actor: row.actorId ? (userById.get(row.actorId) ?? { id: row.actorId, name: "(deleted user)", email: "" }) : null,
      actorKind: row.actorKind,
      action: row.action,
      conversation: row.conversationId
        ? (conversationById.get(row.conversationId) ?? { id: row.conversationId, title: "(deleted)" })
        : null,
      target: {
        kind: row.targetKind,
        id: row.targetId,
        label,
        name:
          row.targetKind === "user"
            ? (userById.get(row.targetId)?.name ?? null)
            : row.targetKind === "agent"
              ? (agentById.get(row.targetId)?.name ?? null)
              : null,
      },
      detail: row.detail,
    };
  });
}
