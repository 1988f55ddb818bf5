/**
 * What a browser's socket asks of the application: who is signed in, which
 * conversations' activity to follow, and a member's replay of what they missed.
 */
import type { PrismaClient } from "../generated/prisma/client.ts";
import { listConversationEvents } from "../adapters/prisma/event-log.ts";
import { assertMember, type Actor } from "../access/actor.ts";
import type { ConversationEventDTO } from "../protocol/events.ts";

/**
 * Reads the signed-in user and their session from a request's headers (auth/session.ts's
 * getSessionWithUser, given at boot: auth reads the runtime, which holds this facade).
 */
export type SessionReader = (headers: Headers) => Promise<{
  user: { id: string; name: string; email: string; role: "admin" | "member" };
  session: { id: string; expiresAt: Date };
} | null>;

export type Replay = { kind: "events"; events: ConversationEventDTO[]; lastSeq: number } | { kind: "too-long" };

export function createLiveViewServices({ prisma, readSession }: { prisma: PrismaClient; readSession: SessionReader }) {
  return {
    /** The signed-in user and their session, from the request's cookie; null when there is none. */
    session: readSession,

    /** When the session ends; null once it is gone (signed out, revoked). */
    async sessionExpiry({ sessionId }: { sessionId: string }): Promise<Date | null> {
      const session = await prisma.session.findUnique({ where: { id: sessionId }, select: { expiresAt: true } });
      return session?.expiresAt ?? null;
    },

    /** The conversations a person is in: their sockets follow each one's activity. */
    async conversationIdsOf({ userId }: { userId: string }): Promise<string[]> {
      const memberships = await prisma.membership.findMany({ where: { userId }, select: { conversationId: true } });
      return memberships.map((membership) => membership.conversationId);
    },

    /**
     * A member joins a conversation's live view: `subscribe` (the socket joining the room)
     * runs after the membership check and before the replay is read, so no event falls
     * between the two. More than `maxEvents` missed: "too-long" (reload the snapshot).
     * A non-member gets "not found", as for a conversation that does not exist.
     */
    async join(input: {
      actor: Actor;
      conversationId: string;
      afterSeq: number;
      maxEvents: number;
      subscribe: () => Promise<void>;
    }): Promise<Replay> {
      const { conversationId, afterSeq } = input;
      await assertMember(prisma, input.actor, conversationId);
      await input.subscribe();
      const conversation = await prisma.conversation.findUnique({ where: { id: conversationId }, select: { lastSeq: true } });
      const lastSeq = conversation?.lastSeq ?? 0;
      if (lastSeq - afterSeq > input.maxEvents) return { kind: "too-long" };
      const events = await listConversationEvents(prisma, { conversationId, afterSeq, limit: input.maxEvents + 1 });
      return { kind: "events", events, lastSeq: Math.max(lastSeq, events.at(-1)?.seq ?? 0) };
    },
  };
}
