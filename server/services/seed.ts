/**
 * The demo workspace: a commander and three sub-agents, and a demo conversation with
 * all of them (the automation user's; each person who signs up gets their own copy,
 * see createPersonalDemo), so a fresh install can run a plan at once. Idempotent, also when run by
 * several processes at once: it only adds what is missing and never overwrites an
 * admin's edits.
 */
import type { PrismaClient } from "../generated/prisma/client.ts";
import { API_USER_EMAIL } from "../access/actor.ts";

export const DEMO_CONVERSATION_TITLE = "Demo: ask the commander";
const API_USER_ID = "api-automation";
/** fixed, so processes seeding at once create one demo conversation between them */
export const DEMO_CONVERSATION_ID = "demo-conversation";

const DEMO_AGENTS = [
  {
    handle: "commander",
    name: "Commander",
    role: "commander" as const,
    description: "Owns the conversation: answers, plans, and brings the sub-agents' results together.",
    systemPrompt:
      "You own this conversation. Answer simple requests yourself; when a request needs several steps, write a plan with create_plan and let the sub-agents do the steps.",
    concurrency: 8,
  },
  {
    handle: "researcher",
    name: "Researcher",
    role: "sub_agent" as const,
    description: "Finds and checks facts about one topic at a time: documentation, prices, limits, history.",
    systemPrompt: "You find and check facts. Answer concisely and finish with a one-paragraph summary.",
    concurrency: 4,
  },
  {
    handle: "analyst",
    name: "Analyst",
    role: "sub_agent" as const,
    description: "Compares options against criteria and states the trade-offs; good for tables and recommendations.",
    systemPrompt: "You compare options against criteria and state trade-offs plainly.",
    concurrency: 4,
  },
  {
    handle: "writer",
    name: "Writer",
    role: "sub_agent" as const,
    description: "Turns findings into clear prose for the team: summaries, announcements, documents.",
    systemPrompt: "You turn findings into clear prose for the team.",
    concurrency: 4,
  },
];

/**
 * Several processes may seed one database at the same moment (they start together), so
 * every write is an insert that skips what exists (ON CONFLICT DO NOTHING on a unique key)
 * or a conditional update; nothing reads, decides and then writes.
 */
export async function seedWorkspace(prisma: PrismaClient, input: { defaultModel: string; demoConversation: boolean }) {
  const now = new Date();
  await prisma.agent.createMany({
    data: DEMO_AGENTS.map((agent) => ({ ...agent, model: input.defaultModel, createdAt: now, updatedAt: now })),
    skipDuplicates: true,
  });
  // a demo agent nobody has edited follows the workspace default (e.g. a key was added);
  // updatedAt stays equal to createdAt so it stays "unedited"
  await prisma.$executeRaw`
    UPDATE "Agent" SET model = ${input.defaultModel}, "updatedAt" = "createdAt"
    WHERE handle = ANY(${DEMO_AGENTS.map((agent) => agent.handle)}) AND model <> ${input.defaultModel}
      AND "updatedAt" = "createdAt"`;
  await prisma.user.createMany({
    data: [{ id: API_USER_ID, name: "Automation", email: API_USER_EMAIL, role: "member" }],
    skipDuplicates: true,
  });
  const apiUser = await prisma.user.findUniqueOrThrow({ where: { email: API_USER_EMAIL }, select: { id: true } });
  if (!input.demoConversation) return { apiUserId: apiUser.id, demoConversationId: null };
  // installs seeded before the fixed id have their demo conversation under another id
  const existing = await prisma.conversation.findFirst({
    where: { title: DEMO_CONVERSATION_TITLE, isDemo: false },
    orderBy: { createdAt: "asc" },
    select: { id: true },
  });
  if (existing) return { apiUserId: apiUser.id, demoConversationId: existing.id };
  await prisma.conversation.createMany({ data: [{ id: DEMO_CONVERSATION_ID, title: DEMO_CONVERSATION_TITLE }], skipDuplicates: true });
  const agents = await prisma.agent.findMany({ where: { handle: { in: DEMO_AGENTS.map((agent) => agent.handle) } }, select: { id: true } });
  await prisma.conversationAgent.createMany({
    data: agents.map((agent) => ({ conversationId: DEMO_CONVERSATION_ID, agentId: agent.id })),
    skipDuplicates: true,
  });
  await prisma.membership.createMany({
    data: [{ conversationId: DEMO_CONVERSATION_ID, userId: apiUser.id, role: "owner" }],
    skipDuplicates: true,
  });
  return { apiUserId: apiUser.id, demoConversationId: DEMO_CONVERSATION_ID };
}

/**
 * Everyone who signs up gets a demo conversation of their own (labelled "Demo" in the
 * sidebar), with the demo agents, owned by them: they can try a plan, rename, archive
 * or delete it without touching anyone else's. Made only where the workspace seeds its
 * demo (BATON_SEED_DEMO=1, which leaves the workspace's own demo conversation, owned by
 * the automation user, as the marker). Returns its id, or null.
 */
export async function createPersonalDemo(prisma: PrismaClient, userId: string): Promise<string | null> {
  const workspaceDemo = await prisma.conversation.findFirst({
    where: { title: DEMO_CONVERSATION_TITLE, isDemo: false },
    select: { id: true },
  });
  if (!workspaceDemo) return null;
  const agents = await prisma.agent.findMany({ where: { handle: { in: DEMO_AGENTS.map((agent) => agent.handle) } }, select: { id: true } });
  const conversation = await prisma.conversation.create({
    data: {
      title: DEMO_CONVERSATION_TITLE,
      isDemo: true,
      agents: { create: agents.map((agent) => ({ agentId: agent.id })) },
      memberships: { create: { userId, role: "owner" } },
    },
    select: { id: true },
  });
  return conversation.id;
}
