/**
 * Opening a conversation: the snapshot a browser reads before it draws anything, on a
 * conversation whose history has grown (bench/history.ts). It should not grow with the
 * plans and runs of months; the messages it carries are bounded by SNAPSHOT_MESSAGES.
 */
import type { ExecutorFixture } from "../server/executor/testing/executor-fixture.ts";

/** Size and read time (median of five, after one warm-up) of the fixture conversation's snapshot, as a line for the table. */
export async function conversationOpenFigure(fixture: ExecutorFixture): Promise<string> {
  const conversationId = fixture.conversationId;
  const read = () => fixture.services.getSnapshot({ actor: { id: fixture.userId, role: "member" }, conversationId });
  await read();
  const times: number[] = [];
  let bytes = 0;
  for (let i = 0; i < 5; i++) {
    const started = performance.now();
    bytes = Buffer.byteLength(JSON.stringify(await read()));
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  const where = { conversationId };
  const [plans, steps, runs, messages] = await Promise.all([
    fixture.db.prisma.plan.count({ where }),
    fixture.db.prisma.planStep.count({ where: { plan: where } }),
    fixture.db.prisma.run.count({ where }),
    fixture.db.prisma.message.count({ where }),
  ]);
  const count = (n: number) => n.toLocaleString("en");
  return (
    `conversation of ${count(plans)} plans, ${count(steps)} steps, ${count(runs)} runs, ${count(messages)} messages: ` +
    `snapshot ${(bytes / 1024).toFixed(0)} kB, read and serialised in ${times[2].toFixed(0)} ms (median of 5; ${times[0].toFixed(0)}–${times[4].toFixed(0)})`
  );
}
