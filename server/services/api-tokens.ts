/**
 * Personal access tokens for /api/v1 (GitHub's fine-grained tokens, GitLab's PATs):
 * created and revoked by their owner in Settings, scoped, always expiring, and stored
 * as the SHA-256 of a 256-bit random secret — a database leak yields no usable token,
 * and a hash this fast is fine because the secret is not guessable. The secret is
 * shown once, when created.
 *
 * Scopes nest: `admin` includes `write`, which includes `read`. A token acts as its
 * user with that user's current rights; `admin` only counts while the user is still a
 * workspace admin. BATON_API_TOKEN remains the bootstrap token (api-v1/api-auth.ts).
 */
import { createHash, randomBytes } from "node:crypto";
import type { PrismaClient } from "../generated/prisma/client.ts";
import type { SqlRunner } from "../db/sql-runner.ts";
import { BatonError } from "../protocol/errors.ts";
import { recordAudit, type AuditActor } from "../access/audit.ts";
import { MAX_TOKEN_DAYS, type TokenDTO, type TokenScope } from "../protocol/rest/account.ts";

export const TOKEN_PREFIX = "baton_pat_";
export const MAX_TOKENS_PER_USER = 50;

const RANK: Record<TokenScope, number> = { read: 1, write: 2, admin: 3 };

/** Whether the granted scopes allow `needed` (admin ⊃ write ⊃ read). */
export function scopeAllows(granted: readonly string[], needed: TokenScope): boolean {
  return granted.some((scope) => scope in RANK && RANK[scope as TokenScope] >= RANK[needed]);
}

export const hashToken = (token: string) => createHash("sha256").update(token).digest("hex");

type TokenRow = {
  id: string;
  name: string;
  prefix: string;
  scopes: string[];
  expiresAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
  createdAt: Date;
};

const toDTO = (row: TokenRow): TokenDTO => ({
  id: row.id,
  name: row.name,
  prefix: row.prefix,
  scopes: row.scopes.filter((scope): scope is TokenScope => scope in RANK),
  expiresAt: row.expiresAt.toISOString(),
  lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
  revokedAt: row.revokedAt?.toISOString() ?? null,
  createdAt: row.createdAt.toISOString(),
});

export async function createApiToken(
  prisma: PrismaClient,
  {
    actor,
    name,
    scopes,
    expiresInDays,
    now = new Date(),
  }: { actor: AuditActor; name: string; scopes: TokenScope[]; expiresInDays: number; now?: Date },
): Promise<{ token: string; record: TokenDTO }> {
  const label = name.trim();
  if (!label || label.length > 100) throw new BatonError("invalid_input", "name: 1 to 100 characters");
  if (scopes.length === 0) throw new BatonError("invalid_input", "scopes: choose at least one of read, write, admin");
  if (!Number.isInteger(expiresInDays) || expiresInDays < 1 || expiresInDays > MAX_TOKEN_DAYS) {
    throw new BatonError("invalid_input", `expiresInDays: a whole number from 1 to ${MAX_TOKEN_DAYS}`);
  }
  if (scopes.includes("admin") && actor.role !== "admin")
    throw new BatonError("forbidden", "Only admins can create tokens with the admin scope.");
  if (actor.kind === "token") throw new BatonError("forbidden", "Tokens are created in Settings, not with another token.");
  const live = await prisma.apiToken.count({ where: { userId: actor.id, revokedAt: null, expiresAt: { gt: now } } });
  if (live >= MAX_TOKENS_PER_USER)
    throw new BatonError("conflict", `You already have ${MAX_TOKENS_PER_USER} live tokens; revoke one first.`);
  const token = `${TOKEN_PREFIX}${randomBytes(32).toString("base64url")}`;
  const record = await prisma.$transaction(async (tx) => {
    const row = await tx.apiToken.create({
      data: {
        userId: actor.id,
        name: label,
        tokenHash: hashToken(token),
        prefix: token.slice(0, TOKEN_PREFIX.length + 4),
        scopes: [...new Set(scopes)],
        expiresAt: new Date(now.getTime() + expiresInDays * 24 * 60 * 60 * 1000),
      },
    });
    await recordAudit(tx, {
      actor,
      action: "token.created",
      target: { kind: "token", id: row.id },
      detail: { name: label, scopes: row.scopes.join(","), expiresAt: row.expiresAt.toISOString() },
    });
    return row;
  });
  return { token, record: toDTO(record) };
}

export async function listApiTokens(prisma: PrismaClient, { actor }: { actor: AuditActor }): Promise<TokenDTO[]> {
  const rows = await prisma.apiToken.findMany({ where: { userId: actor.id }, orderBy: { createdAt: "desc" } });
  return rows.map(toDTO);
}

/** The owner revokes their token (admins may revoke anyone's). Revoking twice is a 409. */
export async function revokeApiToken(prisma: PrismaClient, { actor, tokenId }: { actor: AuditActor; tokenId: string }): Promise<TokenDTO> {
  const row = await prisma.apiToken.findUnique({ where: { id: tokenId } });
  if (!row || (row.userId !== actor.id && actor.role !== "admin")) throw new BatonError("not_found", "No such token.");
  if (row.revokedAt) throw new BatonError("conflict", "That token is already revoked.");
  const revoked = await prisma.$transaction(async (tx) => {
    const updated = await tx.apiToken.update({ where: { id: row.id }, data: { revokedAt: new Date() } });
    await recordAudit(tx, {
      actor,
      action: "token.revoked",
      target: { kind: "token", id: row.id },
      detail: { name: row.name, owner: row.userId },
    });
    return updated;
  });
  return toDTO(revoked);
}

export interface TokenPrincipal {
  tokenId: string;
  userId: string;
  userRole: "admin" | "member";
  scopes: TokenScope[];
}

interface VerifiedTokenRow {
  id: string;
  userId: string;
  scopes: string[];
  role: string | null;
  /** unrevoked and unexpired */
  live: boolean;
  /** last used over a minute ago (or never) */
  stale: boolean;
  /** whether the token's user is a member of the conversation asked about (null: none asked) */
  member: boolean | null;
}

/**
 * The token, its user's role and, for a route that names a conversation, whether that
 * user is a member of it: one statement on the database's own query (every API call
 * pays it, and Prisma's pipeline and a second statement for the membership were about
 * 2 ms of a plan's submission on the embedded database). Times are compared in SQL.
 */
const VERIFY_TOKEN_SQL = `
  SELECT t."id", t."userId", t."scopes", u."role" AS "role",
    (t."revokedAt" IS NULL AND t."expiresAt" > $2::timestamp(3)) AS "live",
    (t."lastUsedAt" IS NULL OR t."lastUsedAt" < $2::timestamp(3) - interval '1 minute') AS "stale",
    CASE WHEN $3::text IS NULL THEN NULL
      ELSE EXISTS (SELECT 1 FROM "Membership" m WHERE m."conversationId" = $3::text AND m."userId" = t."userId") END AS "member"
  FROM "ApiToken" t JOIN "user" u ON u."id" = t."userId"
  WHERE t."tokenHash" = $1`;

/**
 * The live token with this secret (unrevoked, unexpired), or null. With
 * `conversationId`, `member` says whether its user is a member of that conversation
 * (null when none was asked about).
 */
export async function verifyApiToken(
  db: { sql: SqlRunner; prisma: PrismaClient },
  token: string,
  options: { now?: Date; conversationId?: string | null } = {},
): Promise<(TokenPrincipal & { member: boolean | null }) | null> {
  if (!token.startsWith(TOKEN_PREFIX) || token.length > 200) return null;
  const now = options.now ?? new Date();
  const [row] = await db.sql<VerifiedTokenRow>(VERIFY_TOKEN_SQL, [hashToken(token), now.toISOString(), options.conversationId ?? null]);
  if (!row?.live) return null;
  // last use to the minute is enough, and spares a write per request
  if (row.stale) await db.prisma.apiToken.update({ where: { id: row.id }, data: { lastUsedAt: now } });
  const userRole = row.role === "admin" ? "admin" : "member";
  // an admin token of someone who is no longer an admin is a write token
  const scopes = row.scopes.filter((scope): scope is TokenScope => scope in RANK && (scope !== "admin" || userRole === "admin"));
  return { tokenId: row.id, userId: row.userId, userRole, scopes, member: row.member };
}
