/**
 * A run a member stopped (or that its plan's stop or cancel ended) leaves what it had
 * streamed: the text is posted as the agent's message of kind `stopped`, which the chat
 * marks "(stopped before it finished)" in the reader's language, instead of vanishing.
 */
import type { Prisma } from "../generated/prisma/client.ts";
import type { ExecutorContext } from "./context.ts";
import { insertMessage } from "./messages.ts";
import type { RunLaunch } from "./run-records.ts";
import type { UnitOfWork } from "./unit-of-work.ts";

type Tx = Prisma.TransactionClient;

export async function postStoppedText(
  context: ExecutorContext,
  tx: Tx,
  uow: UnitOfWork,
  input: { launch: RunLaunch; text: string },
): Promise<void> {
  const { launch } = input;
  const runId = launch.request.runId;
  // only a run that was cancelled: a run lost or abandoned was not stopped by anyone, and
  // one whose text is already posted is not posted twice
  const run = await tx.run.findUnique({ where: { id: runId }, select: { status: true } });
  if (run?.status !== "cancelled") return;
  if ((await tx.message.count({ where: { runId, kind: "stopped" } })) > 0) return;
  insertMessage(context, uow, {
    conversationId: launch.request.conversationId,
    author: { kind: "agent", agent: launch.agent },
    kind: "stopped",
    body: input.text,
    planId: launch.planId,
    stepId: launch.stepId,
    runId,
  });
}
