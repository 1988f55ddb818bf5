/**
 * Agents and conversation rosters change rarely (an admin edits them) but are needed
 * on every dispatch, so they are cached briefly. Admin writes call `invalidate()`;
 * other processes see an edit within the TTL.
 */
import type { Agent, Prisma } from "../generated/prisma/client.ts";

type Tx = Prisma.TransactionClient;

export const AGENT_CACHE_TTL_MS = 2_000;

/** Why a disabled agent does not answer or take a step: one sentence wherever it is said. */
export const disabledReason = (handle: string) => `@${handle} is disabled`;

interface Entry<T> {
  value: T;
  expires: number;
}

export class AgentDirectory {
  private agents: Entry<Map<string, Agent>> | null = null;
  private readonly rosters = new Map<string, Entry<string[]>>();

  constructor(private readonly now: () => number) {}

  invalidate(): void {
    this.agents = null;
    this.rosters.clear();
  }

  /** Every agent of the workspace, by handle. */
  async all(tx: Tx): Promise<Map<string, Agent>> {
    if (this.agents && this.agents.expires > this.now()) return this.agents.value;
    const rows = await tx.agent.findMany({ orderBy: { createdAt: "asc" } });
    const value = new Map(rows.map((agent) => [agent.handle, agent]));
    this.agents = { value, expires: this.now() + AGENT_CACHE_TTL_MS };
    return value;
  }

  async byHandle(tx: Tx, handle: string): Promise<Agent | undefined> {
    return (await this.all(tx)).get(handle);
  }

  /**
   * The agents that joined a conversation. `fresh` reads it from the database: a person's
   * message names agents someone may have added a moment ago, on any process, and must
   * not be refused by a copy up to a TTL old.
   */
  async roster(tx: Tx, conversationId: string, { fresh = false }: { fresh?: boolean } = {}): Promise<Agent[]> {
    const cached = this.rosters.get(conversationId);
    let ids: string[];
    if (!fresh && cached && cached.expires > this.now()) {
      ids = cached.value;
    } else {
      // in the order they joined: the roster is part of the commander's cached prompt prefix,
      // which a reordering by the query planner would invalidate
      const rows = await tx.conversationAgent.findMany({
        where: { conversationId },
        select: { agentId: true },
        orderBy: [{ createdAt: "asc" }, { agentId: "asc" }],
      });
      ids = rows.map((row) => row.agentId);
      this.rosters.set(conversationId, { value: ids, expires: this.now() + AGENT_CACHE_TTL_MS });
    }
    let known = await this.all(tx);
    // an agent created since the workspace's list was cached: read the list again
    if (fresh && ids.some((id) => ![...known.values()].some((agent) => agent.id === id))) {
      this.agents = null;
      known = await this.all(tx);
    }
    const all = [...known.values()];
    return ids.map((id) => all.find((agent) => agent.id === id)).filter((agent): agent is Agent => Boolean(agent));
  }

  /**
   * The agents that cannot take work, with the reason a person reads: every agent an
   * admin disabled, and those of `handles` (a plan's assignees) deleted since the plan
   * was made. Every disabled one, not only the plan's: a commander's decision may move a
   * step to another agent in the same reconcile. A handle this copy does not know is read
   * again first: it may be an agent created since the copy was made.
   */
  async unavailable(tx: Tx, handles: Iterable<string>): Promise<Map<string, string>> {
    let known = await this.all(tx);
    const wanted = [...new Set(handles)];
    if (wanted.some((handle) => !known.has(handle))) {
      this.agents = null;
      known = await this.all(tx);
    }
    const reasons = new Map<string, string>();
    for (const agent of known.values()) {
      if (agent.disabledAt !== null) reasons.set(agent.handle, disabledReason(agent.handle));
    }
    for (const handle of wanted) if (!known.has(handle)) reasons.set(handle, `@${handle} was deleted by an admin`);
    return reasons;
  }

  /** The enabled agents of a conversation: whom the commander is shown and may assign. */
  async available(tx: Tx, conversationId: string): Promise<Agent[]> {
    return (await this.roster(tx, conversationId)).filter((agent) => agent.disabledAt === null);
  }

  /** The conversation's commander, or the workspace's first one if none joined. */
  async commanderFor(tx: Tx, conversationId: string): Promise<Agent> {
    const joined = (await this.roster(tx, conversationId)).find((agent) => agent.role === "commander");
    if (joined) return joined;
    const any = [...(await this.all(tx)).values()].find((agent) => agent.role === "commander");
    if (!any) throw new Error("the workspace has no commander agent");
    return any;
  }
}
