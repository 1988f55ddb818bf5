/**
 * Nothing the outside world sends can wedge a run (issue 42). Every hostile string goes
 * through the real agent runtime on the offline model — as a person's message the
 * commander answers (its echo is cut), a step's input, the model's answer and summary,
 * a tool argument (a file it writes), an upload a step reads, and a webhook payload —
 * and every run ends, and the commander still answers afterwards. Before, eight
 * messages of 1,000 emoji stopped the commander: its echo was cut mid-emoji, the
 * run's write was refused, and the run stayed `running` holding the conversation.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postgresAvailable } from "../db/testing/test-database.ts";
import { routeReaction } from "./reactions.ts";
import { truncateText } from "../core/text.ts";
import { createExecutorFixture, type ExecutorFixture } from "./testing/executor-fixture.ts";
import { offlineAgentRunner } from "./testing/offline-runtime.ts";

const EMOJI_1000 = "😀".repeat(1000);
const HOSTILE: Record<string, string> = {
  nul: "before\u0000after",
  "lone high surrogate": "x\uD83D",
  "lone low surrogate": "\uDE00y",
  "1,000 emoji": EMOJI_1000,
  "family emoji around the cuts": "👩‍👩‍👧‍👦".repeat(300),
  "combining marks": `e${"\u0301".repeat(500)}`,
  "RTL override": "\u202Egnp.exe\u202C file",
  "1 MB": "a😀".repeat(350_000),
  "invalid JSON-ish": '{"a": [1, 2, "unterminated',
  "escaped NUL in JSON": '{"text": "\\u0000 and \\ud800"}',
};

const REFUSED_REASON = "the run's result could not be stored";

const kinds: ("embedded" | "postgres")[] = ["embedded", ...((await postgresAvailable()) ? (["postgres"] as const) : [])];

describe.each(kinds)("hostile text on %s", (kind) => {
  let fixture: ExecutorFixture;

  beforeAll(async () => {
    fixture = await createExecutorFixture({ kind, createRunner: offlineAgentRunner });
  }, 120_000);
  afterAll(async () => {
    await fixture?.close();
  });

  /** waits until the executor is idle and no run is left queued or running, then says how many ended */
  async function everyRunEnds(): Promise<number> {
    await fixture.executor.idle();
    const deadline = Date.now() + 60_000;
    for (;;) {
      const live = await fixture.db.prisma.run.count({ where: { status: { in: ["queued", "running"] } } });
      if (live === 0) break;
      if (Date.now() > deadline) throw new Error(`${live} run(s) still queued or running`);
      await new Promise((resolve) => setTimeout(resolve, 50));
      await fixture.executor.idle();
    }
    // the refused-write net (run-worker.ts) ends such runs failed; here no write may need it: the text was made storable first
    const refused = await fixture.db.prisma.run.findMany({ where: { error: { startsWith: REFUSED_REASON } }, select: { error: true } });
    expect(refused).toEqual([]);
    return fixture.db.prisma.run.count();
  }

  async function commanderStillAnswers(): Promise<void> {
    const message = await fixture.say(`still there? ${Date.now()}`);
    await everyRunEnds();
    const run = await fixture.db.prisma.run.findFirstOrThrow({ where: { triggerMessageId: message.id } });
    expect(run.status).toBe("succeeded");
  }

  it("eight messages of 1,000 emoji leave the commander answering", async () => {
    for (let i = 0; i < 8; i++) await fixture.say(EMOJI_1000);
    expect(await everyRunEnds()).toBeGreaterThanOrEqual(8);
    const failed = await fixture.db.prisma.run.findMany({ where: { status: "failed" }, select: { error: true } });
    expect(failed).toEqual([]);
    const replies = await fixture.db.prisma.message.findMany({ where: { conversationId: fixture.conversationId, authorKind: "agent" } });
    expect(replies.length).toBeGreaterThanOrEqual(8);
    await commanderStillAnswers();
  }, 180_000);

  it.each(Object.entries(HOSTILE))(
    "%s: through a message, a step's answer, summary and file, an upload and a webhook, every run ends",
    async (_name, hostile) => {
      const { conversationId, userId } = fixture;
      // cut with the helper: a plain slice could itself split an emoji (the bug under test)
      const short = hostile.length > 20_000 ? truncateText(hostile, 20_000) : hostile;
      // a person's message: refused (400) when it cannot be stored, answered otherwise
      await fixture.say(short).catch((error: unknown) => expect((error as { code?: string }).code).toBe("invalid_input"));
      const upload = await fixture.services.saveUpload({
        actor: { id: userId, role: "member" },
        conversationId,
        name: `${short.slice(0, 300)}.txt`,
        mediaType: "text/plain",
        bytes: new TextEncoder().encode(hostile),
      });
      const plan = await fixture.executor
        .submitPlan({
          conversationId,
          raw: {
            title: `Hostile ${short.slice(0, 150)}`,
            steps: [
              // the model's answer and summary carry the string, and so does the file it writes (a tool argument)
              {
                index: 1,
                title: "Echo",
                assignee: "researcher",
                input: `@offline summary="${short.slice(0, 2_000)}" file=notes/out.md\n${short}`,
              },
              { index: 2, title: "Read the upload", assignee: "analyst", input: `Read the file "${upload.name}" and say what is in it.` },
              { index: 3, title: "Use it", assignee: "writer", input: "Write up: {{step_1.output_summary}}", wait_for: [1] },
            ],
          },
        })
        .catch((error: unknown) => {
          // a plan a person sends with text that cannot be stored is refused by name; never a crash
          expect((error as { code?: string }).code).toMatch(/invalid/);
          return null;
        });
      await routeReaction(fixture.executor, {
        conversationId,
        source: "ci",
        target: { agent: "researcher" },
        payload: { text: short.slice(0, 30_000) },
      });
      await everyRunEnds();
      if (plan) expect(["completed", "partial", "failed"]).toContain(await fixture.waitForPlan(plan.id));
      await commanderStillAnswers();
    },
    180_000,
  );
});
