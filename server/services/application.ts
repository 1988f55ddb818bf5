/**
 * The application: everything a person (or an API client) can ask of Baton, built once
 * at boot (boot.ts) and reached by every route handler, the automation API and the
 * socket handlers the same way, `getRuntime().app.<area>.<command>(…)`. Each command
 * takes the acting user and checks what they may do itself; the engine (executor/)
 * underneath owns plans, runs and queues and knows nothing of people.
 */
import type { PrismaClient } from "../generated/prisma/client.ts";
import { listConversationEvents } from "../adapters/prisma/event-log.ts";
import { listAuditEvents } from "../access/audit.ts";
import type { Actor } from "../access/actor.ts";
import { createApiToken, listApiTokens, revokeApiToken } from "./api-tokens.ts";
import { createInvite, hasHumanUser, isInviteUsable } from "./invites.ts";
import { listInvitesForAdmin, revokeInvite } from "./admin-invites.ts";
import { getPlanAnswers } from "./admin-plan-answers.ts";
import { getPlanTimeline, listPlanHistory } from "./admin-plans.ts";
import { getUsage } from "./admin-usage.ts";
import { getEffortModels, setEffortModels } from "./admin-effort-models.ts";
import type { EffortModels } from "../core/run-model.ts";
import { listPeopleForAdmin, searchPeople } from "./people-search.ts";
import { lastReadAt, markRead } from "./read-marks.ts";
import type { AgentInput } from "../protocol/rest/admin.ts";
import { mergePlanBranches } from "../workspace/merge.ts";
import {
  getConversationRepository,
  listRepositories,
  listRepositoryBranches,
  registerRepository,
  setConversationRepository,
} from "../workspace/repositories.ts";
import { acceptPlanResult, getPlanWorkspace, getStepChange, planPatch } from "../workspace/review.ts";
import { slotsOverview } from "../workspace/slots-overview.ts";
import { createAgent, deleteAgent, listAgentsForAdmin, setAgentEnabled, updateAgent, type AgentModels } from "./admin-agents.ts";
import { disabledReason } from "../executor/agent-directory.ts";
import { createConversationManageServices, silentConversationNotifier, type ConversationChangeNotifier } from "./conversation-manage.ts";
import { createConversationScope } from "./conversation-scope.ts";
import { createConversationServices } from "./conversations.ts";
import type { Engine } from "./engine.ts";
import { routeReaction, type Reaction } from "./event-reactions.ts";
import { createFormServices } from "./forms.ts";
import { createLiveViewServices, type SessionReader } from "./live-view.ts";
import { createMembershipServices, silentNotifier, type MembershipNotifier } from "./memberships.ts";
import { searchMessages } from "./message-search.ts";
import { createMessageServices } from "./messages.ts";
import { createPlanControls } from "./plan-controls.ts";

export interface ApplicationDeps {
  prisma: PrismaClient;
  engine: Engine;
  /** the live side of membership and conversation changes (sockets); silent without one */
  notifiers?: { memberships?: MembershipNotifier; conversations?: ConversationChangeNotifier };
  /** the models and command-line agents an admin may give an agent (read when asked: configuration may change) */
  agentModels: () => AgentModels;
  /** the signed-in user behind a socket's cookie (auth/session.ts) */
  readSession: SessionReader;
}

/** `fn(prisma, input)` as `fn(input)`: the workspace and account services take the client first. */
function on<I, O>(prisma: PrismaClient, fn: (prisma: PrismaClient, input: I) => O): (input: I) => O {
  return (input) => fn(prisma, input);
}

export function createApplication({ prisma, engine, notifiers = {}, agentModels, readSession }: ApplicationDeps) {
  const membershipNotifier = notifiers.memberships ?? silentNotifier;
  const members = createMembershipServices(prisma, membershipNotifier);
  /** the conversations an agent is in: their open tabs refresh their @-lists when it is disabled, enabled or deleted */
  const conversationsOfAgent = async (agentId: string) =>
    (await prisma.conversationAgent.findMany({ where: { agentId }, select: { conversationId: true } })).map((row) => row.conversationId);
  return {
    conversations: {
      ...createConversationServices(prisma),
      ...createConversationManageServices(prisma, notifiers.conversations ?? silentConversationNotifier),
      /** whether a plan or form addressed under a conversation's URL is that conversation's */
      ...createConversationScope(prisma),
      /** stored events after `afterSeq`, for a caller that checked membership (the API's token statement, a socket's join) */
      events: on(prisma, listConversationEvents),
      /** the reader's mark: the next visit's "new messages" line starts after it */
      markRead: on(prisma, markRead),
      /** the actor's own mark, where the page opens its "new messages" line */
      lastReadAt: on(prisma, lastReadAt),
    },
    members: {
      ...members,
      /** the members dialog's picker: people of the workspace an owner may add */
      searchPeople: on(prisma, searchPeople),
      // who is in a conversation decides who a plan may assign: the engine forgets its cached roster
      async addAgent(input: Parameters<typeof members.addAgent>[0]) {
        const agent = await members.addAgent(input);
        engine.agentsChanged();
        return agent;
      },
      async removeAgent(input: Parameters<typeof members.removeAgent>[0]) {
        await members.removeAgent(input);
        engine.agentsChanged();
      },
    },
    messages: { ...createMessageServices(engine), search: on(prisma, searchMessages) },
    forms: createFormServices({ prisma, engine }),
    /** a browser's live connection: its session, the conversations it follows, a member's replay */
    live: createLiveViewServices({ prisma, readSession }),
    plans: createPlanControls({ prisma, engine }),
    /** an outside event (CI, a review) routed to the agent that owns the work */
    reactions: { route: (reaction: Reaction) => routeReaction(engine, reaction) },
    /** before anyone is signed in: the sign-up and sign-in pages */
    signUp: {
      /** the first person to sign up needs no invite and becomes the admin */
      hasAnyone: () => hasHumanUser(prisma),
      isInviteUsable: on(prisma, isInviteUsable),
    },
    // admins' commands and the admin pages' reads: each checks the actor is an admin itself
    admin: {
      listAgents: on(prisma, listAgentsForAdmin),
      async createAgent(input: { actor: Actor | null; input: AgentInput }) {
        const agent = await createAgent(prisma, { ...input, ...agentModels() });
        engine.agentsChanged();
        return agent;
      },
      async updateAgent(input: { actor: Actor | null; agentId: string; input: AgentInput }) {
        const agent = await updateAgent(prisma, { ...input, ...agentModels() });
        engine.agentsChanged();
        return agent;
      },
      /** disabling withdraws the agent's queued runs (their steps fail with the reason); running ones finish */
      async setAgentEnabled(input: { actor: Actor | null; agentId: string; enabled: boolean }) {
        const { agent, changed } = await setAgentEnabled(prisma, input);
        engine.agentsChanged();
        if (!changed) return agent;
        if (!input.enabled) {
          await engine.withdrawQueuedRuns({ agentId: agent.id, handle: agent.handle, reason: disabledReason(agent.handle) });
        }
        for (const conversationId of await conversationsOfAgent(agent.id)) membershipNotifier.membersChanged({ conversationId });
        return agent;
      },
      async deleteAgent(input: { actor: Actor | null; agentId: string }) {
        // read before: deleting the agent takes it out of them
        const conversations = await conversationsOfAgent(input.agentId);
        const deleted = await deleteAgent(prisma, input);
        engine.agentsChanged();
        for (const conversationId of conversations) membershipNotifier.membersChanged({ conversationId });
        return deleted;
      },
      createInvite: on(prisma, createInvite),
      revokeInvite: on(prisma, revokeInvite),
      listInvites: on(prisma, listInvitesForAdmin),
      auditLog: on(prisma, listAuditEvents),
      /** everyone, for the audit log's "who" filter */
      listPeople: on(prisma, listPeopleForAdmin),
      usage: on(prisma, getUsage),
      effortModels: on(prisma, getEffortModels),
      setEffortModels: (input: { actor: Actor | null; input: EffortModels }) =>
        setEffortModels(prisma, { ...input, models: agentModels().models }),
      planHistory: on(prisma, listPlanHistory),
      planTimeline: on(prisma, getPlanTimeline),
      planAnswers: on(prisma, getPlanAnswers),
    },
    workspace: {
      listRepositories: on(prisma, listRepositories),
      registerRepository: on(prisma, registerRepository),
      listRepositoryBranches: on(prisma, listRepositoryBranches),
      getConversationRepository: on(prisma, getConversationRepository),
      setConversationRepository: on(prisma, setConversationRepository),
      slotsOverview: on(prisma, slotsOverview),
      getPlanWorkspace: on(prisma, getPlanWorkspace),
      getStepChange: on(prisma, getStepChange),
      acceptPlanResult: on(prisma, acceptPlanResult),
      planPatch: on(prisma, planPatch),
      mergePlanBranches: on(prisma, mergePlanBranches),
    },
    tokens: {
      create: on(prisma, createApiToken),
      list: on(prisma, listApiTokens),
      revoke: on(prisma, revokeApiToken),
    },
  };
}

export type Application = ReturnType<typeof createApplication>;
