import { beforeEach, describe, expect, it } from "vitest";
import type { ConversationEventDTO } from "@/server/protocol/events.ts";
import type { FormDTO, MessageDTO, PlanDTO, StepDTO } from "@/server/protocol/dto.ts";
import { useConversationStore } from "./conversation-store.ts";
import { emptySnapshot } from "@/server/testing/empty-snapshot.ts";

const conversationId = "c1";

function message(id: string, at: string): MessageDTO {
  return {
    id,
    conversationId,
    authorKind: "user",
    author: { id: "u1", name: "Ada" },
    kind: "text",
    body: id,
    notice: null,
    mentions: [],
    planId: null,
    stepId: null,
    runId: null,
    formId: null,
    attachments: [],
    createdAt: at,
    editedAt: null,
    deletedAt: null,
    reactions: [],
  };
}

function messageEvent(seq: number): ConversationEventDTO {
  return {
    v: 1,
    conversationId,
    seq,
    type: "message-created",
    payload: { message: message(`m${seq}`, `2026-01-01T00:00:0${seq}Z`) },
    createdAt: "",
  };
}

describe("conversation store", () => {
  beforeEach(() => {
    useConversationStore.getState().load(emptySnapshot(conversationId));
  });

  it("applies events once, in seq order", () => {
    const store = useConversationStore.getState();
    expect(store.applyEvents([messageEvent(1), messageEvent(2)])).toBe(false);
    expect(store.applyEvents([messageEvent(2), messageEvent(1)])).toBe(false);
    const state = useConversationStore.getState();
    expect(state.lastSeq).toBe(2);
    expect(state.messages.map((m) => m.id)).toEqual(["m1", "m2"]);
  });

  it("shows a message's reactions as the last reactions-changed event says", () => {
    const store = useConversationStore.getState();
    const people = [{ id: "u2", name: "Bo" }];
    store.applyEvents([
      messageEvent(1),
      {
        v: 1,
        conversationId,
        seq: 2,
        type: "reactions-changed",
        payload: { messageId: "m1", reactions: [{ emoji: "👍", people }] },
        createdAt: "",
      },
      { v: 1, conversationId, seq: 3, type: "reactions-changed", payload: { messageId: "unloaded", reactions: [] }, createdAt: "" },
    ]);
    const state = useConversationStore.getState();
    expect(state.lastSeq).toBe(3);
    expect(state.messages.map((m) => m.reactions)).toEqual([[{ emoji: "👍", people }]]);
  });

  it("holds an early event until the gap before it is filled", () => {
    const store = useConversationStore.getState();
    expect(store.applyEvents([messageEvent(1), messageEvent(3)])).toBe(true);
    expect(useConversationStore.getState().lastSeq).toBe(1);
    expect(store.applyEvents([messageEvent(2), messageEvent(3)])).toBe(false);
    const state = useConversationStore.getState();
    expect(state.lastSeq).toBe(3);
    expect(state.messages.map((m) => m.id)).toEqual(["m1", "m2", "m3"]);
    expect(state.pending).toEqual({});
  });

  it("ignores events of another conversation and keeps an optimistic message single", () => {
    const store = useConversationStore.getState();
    store.upsertMessage(message("m1", "2026-01-01T00:00:01Z"));
    store.applyEvents([{ ...messageEvent(1), conversationId: "other" }]);
    store.applyEvents([messageEvent(1)]);
    expect(useConversationStore.getState().messages).toHaveLength(1);
  });

  it("drops streamed text once the run's message arrives", () => {
    const store = useConversationStore.getState();
    store.appendDelta({ conversationId, runId: "r1", text: "hel" });
    store.appendDelta({ conversationId, runId: "r1", text: "lo" });
    expect(useConversationStore.getState().streams.r1).toBe("hello");
    const event = messageEvent(1);
    if (event.type === "message-created") event.payload.message.runId = "r1";
    store.applyEvents([event]);
    expect(useConversationStore.getState().streams.r1).toBeUndefined();
  });

  it("a reset delta replaces the run's streamed text (a retried model call), other runs keep theirs", () => {
    const store = useConversationStore.getState();
    store.appendDelta({ conversationId, runId: "r2", text: "First part. Cut mid-" });
    store.appendDelta({ conversationId, runId: "r3", text: "other run" });
    store.appendDelta({ conversationId, runId: "r2", text: "First part.", reset: true });
    store.appendDelta({ conversationId, runId: "r2", text: " Retried." });
    expect(useConversationStore.getState().streams.r2).toBe("First part. Retried.");
    expect(useConversationStore.getState().streams.r3).toBe("other run");
  });
});

describe("the conversation's roster", () => {
  const writer = { id: "a2", handle: "writer", name: "Writer", role: "sub_agent" as const };

  beforeEach(() => {
    useConversationStore.getState().load(emptySnapshot(conversationId));
  });

  it("follows an agent added and then removed, for the open conversation only", () => {
    const store = useConversationStore.getState();
    const before = store.agents;
    const people = [{ id: "u1", name: "Ada", email: "ada@example.test", role: "owner" }];
    store.setRoster({ conversationId, agents: [...before, writer], members: people });
    let state = useConversationStore.getState();
    expect(state.agents.map((agent) => agent.handle)).toContain("writer");
    // the store keeps what the composer and header use, not the dialog's emails and roles
    expect(state.members).toEqual([{ id: "u1", name: "Ada" }]);

    // an answer for a conversation the tab has left changes nothing
    store.setRoster({ conversationId: "other", agents: [], members: [] });
    expect(useConversationStore.getState().agents).toEqual(state.agents);

    store.setRoster({ conversationId, agents: before, members: people });
    state = useConversationStore.getState();
    expect(state.agents.map((agent) => agent.handle)).not.toContain("writer");
    expect(state.agents).toEqual(before);
  });

  it("keeps the roster through later events (they carry no agents)", () => {
    const store = useConversationStore.getState();
    store.setRoster({ conversationId, agents: [writer], members: [] });
    store.applyEvents([messageEvent(1)]);
    expect(useConversationStore.getState().agents).toEqual([writer]);
  });
});

describe("live run status", () => {
  const run = (status: "running" | "failed") => ({
    v: 1 as const,
    conversationId,
    seq: 1,
    type: "run-updated" as const,
    payload: {
      run: {
        id: "r1",
        conversationId,
        agentHandle: "researcher",
        planId: "p1",
        stepIndex: 1,
        kind: "step" as const,
        attempt: 1,
        status,
        model: "openai:x",
        startedAt: null,
        endedAt: null,
        error: null,
        tokensIn: 0,
        tokensOut: 0,
        cost: 0,
        usageEstimated: false,
      },
    },
    createdAt: "",
  });

  it("keeps what a live run waits for until it is cleared or the run ends", () => {
    const store = useConversationStore.getState();
    store.load(emptySnapshot(conversationId));
    store.applyEvents([run("running")]);
    store.setRunStatus({ conversationId, runId: "r1", text: "attempt 2 of 5, retrying in 2 s (provider error)" });
    expect(useConversationStore.getState().runStatus).toEqual({ r1: "attempt 2 of 5, retrying in 2 s (provider error)" });
    store.setRunStatus({ conversationId: "other", runId: "r1", text: "ignored" });
    expect(useConversationStore.getState().runStatus.r1).toContain("attempt 2");
    store.setRunStatus({ conversationId, runId: "r1", text: null });
    expect(useConversationStore.getState().runStatus).toEqual({});
    store.setRunStatus({ conversationId, runId: "r1", text: "waiting for the openai provider" });
    store.applyEvents([{ ...run("failed"), seq: 2 }]);
    expect(useConversationStore.getState().runStatus).toEqual({});
  });

  it("puts a page of earlier messages before those shown; a message in both keeps the newer copy", () => {
    const store = useConversationStore.getState();
    store.load({ ...emptySnapshot(conversationId), messages: [message("m3", "2026-01-01T00:00:03Z")], hasEarlierMessages: true });
    // m3 was edited after the page was read: the store's copy stays
    const edited = { ...message("m3", "2026-01-01T00:00:03Z"), body: "edited", editedAt: "2026-01-01T00:01:00Z" };
    store.applyEvents([{ v: 1, conversationId, seq: 1, type: "message-edited", payload: { message: edited }, createdAt: "" }]);
    const page = [message("m1", "2026-01-01T00:00:01Z"), message("m2", "2026-01-01T00:00:02Z"), message("m3", "2026-01-01T00:00:03Z")];
    store.prependMessages({ conversationId: "elsewhere", messages: page, hasEarlier: false, forms: [] });
    expect(useConversationStore.getState().messages.map((m) => m.id)).toEqual(["m3"]);
    store.prependMessages({ conversationId, messages: page, hasEarlier: false, forms: [] });
    const state = useConversationStore.getState();
    expect(state.messages.map((m) => m.id)).toEqual(["m1", "m2", "m3"]);
    expect(state.messages[2].body).toBe("edited");
    expect(state.hasEarlierMessages).toBe(false);
  });

  it("takes the forms a page of earlier messages shows; a form it already holds keeps its own copy", () => {
    const form = (id: string, status: FormDTO["status"]) => ({ id, conversationId, status, planId: null, stepIndex: null }) as FormDTO;
    const store = useConversationStore.getState();
    store.load({ ...emptySnapshot(conversationId), messages: [message("m3", "2026-01-01T00:00:03Z")], hasEarlierMessages: true });
    // f2 was answered after the page was read: the event's copy stays
    store.applyEvents([{ v: 1, conversationId, seq: 1, type: "form-answered", payload: { form: form("f2", "answered") }, createdAt: "" }]);
    const page = { messages: [message("m1", "2026-01-01T00:00:01Z")], hasEarlier: false };
    store.prependMessages({ conversationId: "elsewhere", ...page, forms: [form("f1", "answered")] });
    expect(useConversationStore.getState().forms).not.toHaveProperty("f1");
    store.prependMessages({ conversationId, ...page, forms: [form("f1", "cancelled"), form("f2", "open")] });
    const { forms } = useConversationStore.getState();
    expect(Object.keys(forms).sort()).toEqual(["f1", "f2"]);
    expect(forms.f1.status).toBe("cancelled");
    expect(forms.f2.status).toBe("answered");
  });

  describe("a plan sent without its steps", () => {
    const step = (index: number, status: StepDTO["status"]) => ({ index, status, title: `step ${index}` }) as StepDTO;
    const plan = (steps: StepDTO[]): PlanDTO => ({
      id: "p1",
      conversationId,
      title: "Old",
      status: "completed",
      maxParallel: 4,
      request: "",
      rerunOfId: null,
      createdAt: "2026-01-01T00:00:00Z",
      endedAt: "2026-01-01T00:01:00Z",
      steps,
    });
    beforeEach(() => {
      useConversationStore.getState().load({ ...emptySnapshot(conversationId), plans: [{ ...plan([]), steps: null }] });
    });

    it("takes its steps once read, for its own conversation only, and never over steps already held", () => {
      const store = useConversationStore.getState();
      store.setPlanSteps({ ...plan([step(1, "done")]), conversationId: "elsewhere" });
      expect(useConversationStore.getState().plans.p1.steps).toBeNull();
      store.setPlanSteps(plan([step(1, "done"), step(2, "skipped")]));
      expect(useConversationStore.getState().plans.p1.steps?.map((s) => s.status)).toEqual(["done", "skipped"]);
      store.setPlanSteps(plan([step(1, "failed")]));
      expect(useConversationStore.getState().plans.p1.steps?.map((s) => s.status)).toEqual(["done", "skipped"]);
    });

    it("a step event for it does not make a partial list of steps", () => {
      const event: ConversationEventDTO = {
        v: 1,
        conversationId,
        seq: 1,
        type: "step-updated",
        payload: { planId: "p1", step: step(2, "done") },
        createdAt: "",
      };
      expect(useConversationStore.getState().applyEvents([event])).toBe(false);
      const state = useConversationStore.getState();
      expect(state.lastSeq).toBe(1);
      expect(state.plans.p1.steps).toBeNull();
    });
  });
});
