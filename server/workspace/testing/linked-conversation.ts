/** A registered repository (the fixture's) and a conversation linked to it: where workspace tests start. */
import { randomUUID } from "node:crypto";
import type { PrismaClient } from "../../generated/prisma/client.ts";
import type { GitFixture } from "./git-fixture.ts";

export async function linkedConversation(
  prisma: PrismaClient,
  fixture: GitFixture,
): Promise<{ repositoryId: string; conversationId: string }> {
  const repository = await prisma.repository.create({ data: { name: `r-${randomUUID().slice(0, 8)}`, path: fixture.repoPath } });
  const conversation = await prisma.conversation.create({ data: { title: "code", repositoryId: repository.id } });
  return { repositoryId: repository.id, conversationId: conversation.id };
}
