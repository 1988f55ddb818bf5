/**
 * The demo workspace: a commander and three sub-agents, and a demo conversation with
 * all of them, so a fresh install can run a plan at once. Idempotent: it only adds
 * what is missing and never overwrites an admin's edits.
 */
import type { PrismaClient } from "../generated/prisma/client.ts";

export const DEMO_CONVERSATION_TITLE = "Demo: ask the commander";
export const API_USER_EMAIL = "automation@baton.local";

const DEMO_AGENTS = [
  {
    handle: "commander",
    name: "Commander",
    role: "commander" as const,
    systemPrompt:
      "You own this conversation. Answer simple requests yourself; when a request needs several steps, write a plan with create_plan and let the sub-agents do the steps.",
    concurrency: 8,
  },
  {
    handle: "researcher",
    name: "Researcher",
    role: "sub_agent" as const,
    systemPrompt: "You find and check facts. Answer concisely and finish with a one-paragraph summary.",
    concurrency: 4,
  },
  {
    handle: "analyst",
    name: "Analyst",
    role: "sub_agent" as const,
    systemPrompt: "You compare options against criteria and state trade-offs plainly.",
    concurrency: 4,
  },
  {
    handle: "writer",
    name: "Writer",
    role: "sub_agent" as const,
    systemPrompt: "You turn findings into clear prose for the team.",
    concurrency: 4,
  },
];

export async function seedWorkspace(prisma: PrismaClient, input: { defaultModel: string; demoConversation: boolean }) {
  for (const agent of DEMO_AGENTS) {
    const existing = await prisma.agent.findUnique({ where: { handle: agent.handle } });
    if (!existing) {
      const now = new Date();
      await prisma.agent.create({ data: { ...agent, model: input.defaultModel, createdAt: now, updatedAt: now } });
    } else if (existing.model !== input.defaultModel && existing.createdAt.getTime() === existing.updatedAt.getTime()) {
      // a demo agent nobody has edited follows the workspace default (e.g. a key was added);
      // keep updatedAt equal to createdAt so it stays "unedited"
      await prisma.agent.update({
        where: { id: existing.id },
        data: { model: input.defaultModel, updatedAt: existing.createdAt },
      });
    }
  }
  const apiUser = await prisma.user.upsert({
    where: { email: API_USER_EMAIL },
    create: { id: "api-automation", name: "Automation", email: API_USER_EMAIL, role: "member" },
    update: {},
  });
  if (!input.demoConversation) return { apiUserId: apiUser.id, demoConversationId: null };
  let demo = await prisma.conversation.findFirst({ where: { title: DEMO_CONVERSATION_TITLE } });
  if (!demo) {
    const agents = await prisma.agent.findMany({ where: { handle: { in: DEMO_AGENTS.map((agent) => agent.handle) } } });
    demo = await prisma.conversation.create({
      data: {
        title: DEMO_CONVERSATION_TITLE,
        agents: { create: agents.map((agent) => ({ agentId: agent.id })) },
        memberships: { create: { userId: apiUser.id, role: "owner" } },
      },
    });
  }
  return { apiUserId: apiUser.id, demoConversationId: demo.id };
}

/** Everyone who signs up can open the demo conversation and watch a plan run at once. */
export async function joinDemoConversation(prisma: PrismaClient, userId: string): Promise<void> {
  const demo = await prisma.conversation.findFirst({ where: { title: DEMO_CONVERSATION_TITLE }, select: { id: true } });
  if (!demo) return;
  await prisma.membership.upsert({
    where: { conversationId_userId: { conversationId: demo.id, userId } },
    create: { conversationId: demo.id, userId },
    update: {},
  });
}
