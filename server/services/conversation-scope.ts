/**
 * Whether a plan or a form belongs to a conversation. Routes address them under
 * /api/conversations/<id>/…, and the membership the route checked is that conversation's:
 * a plan or form of another conversation must be "not found" there, however it is named
 * (auth/guards.ts asks here, so auth/ owns no data queries).
 */
import type { PrismaClient } from "../generated/prisma/client.ts";

export function createConversationScope(prisma: PrismaClient) {
  return {
    async holdsPlan({ conversationId, planId }: { conversationId: string; planId: string }): Promise<boolean> {
      const plan = await prisma.plan.findUnique({ where: { id: planId }, select: { conversationId: true } });
      return plan?.conversationId === conversationId;
    },
    async holdsForm({ conversationId, formId }: { conversationId: string; formId: string }): Promise<boolean> {
      const form = await prisma.form.findUnique({ where: { id: formId }, select: { conversationId: true } });
      return form?.conversationId === conversationId;
    },
  };
}
