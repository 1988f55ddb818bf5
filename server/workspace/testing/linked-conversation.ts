/**
 * Where workspace tests start: a registered repository (the git fixture's) with a
 * conversation linked to it, a plan of workspace steps in it, and a workspace runtime
 * over the fixture's folders, built as a server process would build it.
 */
import { randomUUID } from "node:crypto";
import path from "node:path";
import type { PrismaClient } from "../../generated/prisma/client.ts";
import { MemoryArtifactStore } from "../../agents/memory-stores.ts";
import type { CliAgents } from "../cli-agent.ts";
import type { WorkspaceSettings } from "../settings.ts";
import { createWorkspaceRuntime, type WorkspaceRuntime } from "../workspace-runner.ts";
import type { GitFixture } from "./git-fixture.ts";

export async function linkedConversation(
  prisma: PrismaClient,
  fixture: GitFixture,
): Promise<{ repositoryId: string; conversationId: string }> {
  const repository = await prisma.repository.create({ data: { name: `r-${randomUUID().slice(0, 8)}`, path: fixture.repoPath } });
  const conversation = await prisma.conversation.create({ data: { title: "code", repositoryId: repository.id } });
  return { repositoryId: repository.id, conversationId: conversation.id };
}

export interface PlanStepSeed {
  title: string;
  assignee?: string;
  input?: string;
  waitFor?: number[];
}

/** A plan whose steps are numbered from 1 in the order given, none retried; its id. */
export async function workspacePlan(
  prisma: PrismaClient,
  conversationId: string,
  steps: readonly PlanStepSeed[],
  { title = "p", maxParallel = 2 }: { title?: string; maxParallel?: number } = {},
): Promise<string> {
  const plan = await prisma.plan.create({
    data: {
      conversationId,
      title,
      maxParallel,
      request: "r",
      steps: {
        create: steps.map((step, position) => ({
          index: position + 1,
          title: step.title,
          assignee: step.assignee ?? "coder",
          input: step.input ?? "edit",
          maxRetries: 0,
          waitFor: step.waitFor ?? [],
        })),
      },
    },
  });
  return plan.id;
}

/** A workspace runtime whose slots and clones live in the fixture's folder, without bubblewrap. */
export function fixtureRuntime(
  prisma: PrismaClient,
  fixture: Pick<GitFixture, "root">,
  options: { artifacts?: MemoryArtifactStore; cliAgents?: CliAgents; settings?: Partial<WorkspaceSettings> } = {},
): WorkspaceRuntime {
  return createWorkspaceRuntime({
    prisma,
    artifacts: options.artifacts ?? new MemoryArtifactStore(),
    settings: {
      slotsDir: path.join(fixture.root, "slots"),
      repositoriesDir: path.join(fixture.root, "repos"),
      slotsPerRepository: 4,
      ...options.settings,
    },
    ...(options.cliAgents ? { cliAgents: options.cliAgents } : {}),
  });
}
