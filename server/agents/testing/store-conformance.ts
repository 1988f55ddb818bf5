/**
 * The conformance suite of the agent runtime's stores (ports.ts): every implementation —
 * the memory stores the tests and the demo use, the Prisma stores the server uses —
 * must pass it, so a test that passes on memory says something about the database.
 * Run from memory-stores.test.ts and adapters/prisma/agent-stores.int.test.ts.
 * The plan_status reader is one of them: the memory one answers the tool's tests.
 */
import { createHash } from "node:crypto";
import type { ModelMessage } from "ai";
import { describe, expect, it } from "vitest";
import type {
  ArtifactStore,
  ConversationMemory,
  HistoryMessage,
  PlanStatusReader,
  PlanStatusView,
  SessionStore,
} from "../../ports/agents.ts";

export interface StoreFixture {
  sessions: SessionStore;
  artifacts: ArtifactStore;
  memory: ConversationMemory;
  /** a new conversation the stores may write to */
  conversation(): Promise<string>;
  /** a new run in that conversation (a session belongs to a run) */
  run(conversationId: string): Promise<string>;
  /** a message posted after every message posted before it (a later createdAt) */
  post(conversationId: string, author: HistoryMessage["author"], body: string): Promise<HistoryMessage>;
  /** the handle of an agent that exists, to produce files */
  agentHandle: string;
  plans: PlanStatusReader;
  /** stores a plan of the conversation, newer than every plan stored before it, steps and log as given; its id */
  plan(conversationId: string, plan: Omit<PlanStatusView, "id">): Promise<string>;
}

const said = (text: string): ModelMessage[] => [{ role: "user", content: text }];
const bytes = (text: string) => new TextEncoder().encode(text);
const sha256 = (content: Uint8Array) => createHash("sha256").update(content).digest("hex");

export function describeStoreConformance(name: string, setUp: () => Promise<StoreFixture>): void {
  describe(`${name}: SessionStore`, () => {
    it("loads what was saved, as a copy the caller's later changes do not reach", async () => {
      const stores = await setUp();
      const runId = await stores.run(await stores.conversation());
      expect(await stores.sessions.load(runId)).toBeNull();
      const messages = said("first");
      await stores.sessions.save(runId, messages);
      messages.push({ role: "assistant", content: "changed after saving" });
      expect(await stores.sessions.load(runId)).toEqual(said("first"));
      await stores.sessions.save(runId, said("second"));
      expect(await stores.sessions.load(runId)).toEqual(said("second"));
    });

    it("keeps only text a JSON column can hold (no U+0000, no lone surrogate)", async () => {
      const stores = await setUp();
      const runId = await stores.run(await stores.conversation());
      await stores.sessions.save(runId, said(`nul\u0000 and half \ud83d of an emoji`));
      const loaded = await stores.sessions.load(runId);
      const text = (loaded?.[0] as { content: string } | undefined)?.content ?? "";
      expect(text).toContain("nul");
      expect(text).not.toContain("\u0000");
      // encodeURIComponent refuses a lone surrogate
      expect(() => encodeURIComponent(text)).not.toThrow();
    });
  });

  describe(`${name}: ArtifactStore`, () => {
    const write = (stores: StoreFixture, conversationId: string, runId: string, fileName: string, text: string) => {
      const content = bytes(text);
      return stores.artifacts.write({
        conversationId,
        name: fileName,
        content,
        mediaType: "text/plain",
        sha256: sha256(content),
        untrusted: false,
        producer: { runId, agentHandle: stores.agentHandle, planId: undefined, stepIndex: undefined },
      });
    };

    it("reads the latest version of a name and lists each name once, by name, per conversation", async () => {
      const stores = await setUp();
      const [conversationId, other] = [await stores.conversation(), await stores.conversation()];
      const runId = await stores.run(conversationId);
      await write(stores, conversationId, runId, "zeta.md", "z");
      const first = await write(stores, conversationId, runId, "alpha.md", "one");
      expect(first).toMatchObject({ conversationId, name: "alpha.md", size: 3, sha256: sha256(bytes("one")), untrusted: false });
      expect(first.producer).toMatchObject({ runId, agentHandle: stores.agentHandle });
      await write(stores, conversationId, runId, "alpha.md", "two!");

      const read = await stores.artifacts.read({ conversationId, name: "alpha.md" });
      expect(new TextDecoder().decode(read?.content)).toBe("two!");
      expect(read?.record).toMatchObject({ name: "alpha.md", size: 4 });
      expect((await stores.artifacts.list({ conversationId })).map((file) => [file.name, file.size])).toEqual([
        ["alpha.md", 4],
        ["zeta.md", 1],
      ]);
      expect(await stores.artifacts.list({ conversationId: other })).toEqual([]);
      expect(await stores.artifacts.read({ conversationId: other, name: "alpha.md" })).toBeNull();
    });

    it("hands out copies: changing what was read or written changes nothing stored", async () => {
      const stores = await setUp();
      const conversationId = await stores.conversation();
      const runId = await stores.run(conversationId);
      await write(stores, conversationId, runId, "a.txt", "abc");
      const read = await stores.artifacts.read({ conversationId, name: "a.txt" });
      read!.content[0] = 0x78;
      read!.record.name = "renamed";
      const again = await stores.artifacts.read({ conversationId, name: "a.txt" });
      expect(new TextDecoder().decode(again?.content)).toBe("abc");
      expect(again?.record.name).toBe("a.txt");
    });
  });

  describe(`${name}: ConversationMemory`, () => {
    const bodies = (messages: HistoryMessage[]) => messages.map((message) => message.body);

    it("gives the latest messages before a message, oldest first, and says whether older ones exist", async () => {
      const stores = await setUp();
      const conversationId = await stores.conversation();
      const other = await stores.conversation();
      await stores.post(other, { kind: "system" }, "elsewhere");
      const posted: HistoryMessage[] = [];
      for (const body of ["m1", "m2", "m3", "m4"]) posted.push(await stores.post(conversationId, { kind: "system" }, body));

      const latest = await stores.memory.recent({ conversationId, limit: 2 });
      expect(bodies(latest.messages)).toEqual(["m3", "m4"]);
      expect(latest.olderExist).toBe(true);
      const before = await stores.memory.recent({ conversationId, beforeMessageId: posted[2].id, limit: 5 });
      expect(bodies(before.messages)).toEqual(["m1", "m2"]);
      expect(before.olderExist).toBe(false);
      expect(before.messages[0]).toEqual(posted[0]);
    });

    it("names each message's author", async () => {
      const stores = await setUp();
      const conversationId = await stores.conversation();
      const authors: HistoryMessage["author"][] = [
        { kind: "user", name: "Ada" },
        { kind: "agent", handle: stores.agentHandle, name: "Writer" },
        { kind: "system" },
      ];
      for (const author of authors) await stores.post(conversationId, author, "hello");
      const { messages } = await stores.memory.recent({ conversationId, limit: 10 });
      expect(messages.map((message) => message.author)).toEqual(authors);
    });

    it("gives a range after a time up to a message, oldest first, and nothing for an unknown message", async () => {
      const stores = await setUp();
      const conversationId = await stores.conversation();
      const posted: HistoryMessage[] = [];
      for (const body of ["r1", "r2", "r3", "r4"]) posted.push(await stores.post(conversationId, { kind: "system" }, body));
      const range = (input: { afterCreatedAt?: string; upToMessageId: string; limit: number }) =>
        stores.memory.range({ conversationId, ...input });
      expect(bodies(await range({ upToMessageId: posted[2].id, limit: 10 }))).toEqual(["r1", "r2", "r3"]);
      expect(bodies(await range({ afterCreatedAt: posted[0].createdAt, upToMessageId: posted[3].id, limit: 2 }))).toEqual(["r2", "r3"]);
      expect(await range({ upToMessageId: "no-such-message", limit: 10 })).toEqual([]);
    });

    it("keeps a summary only ever moving forward", async () => {
      const stores = await setUp();
      const conversationId = await stores.conversation();
      const [first, second] = [
        await stores.post(conversationId, { kind: "system" }, "s1"),
        await stores.post(conversationId, { kind: "system" }, "s2"),
      ];
      expect(await stores.memory.loadSummary(conversationId)).toBeNull();
      const later = { text: "up to s2", upToMessageId: second.id, upToCreatedAt: second.createdAt };
      await stores.memory.saveSummary(conversationId, later);
      // two runs summarising at once: the one that covers less comes second and is not kept
      await stores.memory.saveSummary(conversationId, { text: "up to s1", upToMessageId: first.id, upToCreatedAt: first.createdAt });
      expect(await stores.memory.loadSummary(conversationId)).toEqual(later);
    });
  });

  describe(`${name}: PlanStatusReader`, () => {
    const entry = (second: number, message: string) => ({
      at: `2026-01-01T00:00:${String(second).padStart(2, "0")}.000Z`,
      phase: "dispatch",
      message,
    });
    // steps stored out of order, to show that they come back by index
    const launch: Omit<PlanStatusView, "id"> = {
      title: "Launch",
      status: "running",
      steps: [
        {
          index: 2,
          title: "Tell",
          assignee: "writer",
          status: "failed",
          attempts: 3,
          summary: null,
          failureReason: "rate limited",
          log: [],
        },
        {
          index: 1,
          title: "Look",
          assignee: "researcher",
          status: "done",
          attempts: 1,
          summary: "found three",
          failureReason: null,
          log: [entry(1, "first"), entry(2, "second"), entry(3, "third")],
        },
      ],
    };
    const byIndex = [...launch.steps].sort((a, b) => a.index - b.index);

    it("reads a plan of the conversation by id, its steps by index with their facts and log, oldest first", async () => {
      const stores = await setUp();
      const [conversationId, other] = [await stores.conversation(), await stores.conversation()];
      const planId = await stores.plan(conversationId, launch);
      expect(await stores.plans.read({ conversationId, planId, logLimit: 10 })).toEqual({ id: planId, ...launch, steps: byIndex });
      // a plan is found in its own conversation only
      expect(await stores.plans.read({ conversationId: other, planId, logLimit: 10 })).toBeNull();
      expect(await stores.plans.read({ conversationId, planId: "no-such-plan", logLimit: 10 })).toBeNull();
    });

    it("without an id, reads the conversation's newest plan; a conversation without plans has none", async () => {
      const stores = await setUp();
      const [conversationId, other] = [await stores.conversation(), await stores.conversation()];
      expect(await stores.plans.read({ conversationId, logLimit: 10 })).toBeNull();
      await stores.plan(conversationId, launch);
      const newer = await stores.plan(conversationId, { title: "Follow up", status: "completed", steps: [] });
      await stores.plan(other, { title: "Elsewhere", status: "running", steps: [] });
      expect(await stores.plans.read({ conversationId, logLimit: 10 })).toEqual({
        id: newer,
        title: "Follow up",
        status: "completed",
        steps: [],
      });
    });

    it("reads only the step asked for, and only the newest log entries, oldest first", async () => {
      const stores = await setUp();
      const conversationId = await stores.conversation();
      const planId = await stores.plan(conversationId, launch);
      const one = await stores.plans.read({ conversationId, planId, stepIndex: 1, logLimit: 2 });
      expect(one?.steps.map((step) => [step.index, step.log.map((logged) => logged.message)])).toEqual([[1, ["second", "third"]]]);
      // a step the plan does not have: the plan, without steps
      expect(await stores.plans.read({ conversationId, planId, stepIndex: 9, logLimit: 2 })).toEqual({
        id: planId,
        title: "Launch",
        status: "running",
        steps: [],
      });
    });
  });
}
