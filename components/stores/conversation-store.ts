/**
 * The open conversation's state, built from a snapshot and then only from
 * conversation events, applied strictly in `seq` order: duplicates are ignored,
 * events that arrive early wait in `pending` until the gap before them is filled — by
 * the missing event arriving a moment later, or by a replay the caller asks for
 * (`conversation-sync.ts` waits briefly, then re-joins with `afterSeq = lastSeq`).
 */
import { create } from "zustand";
import type { ConversationEventDTO, ConversationEventPayloads, ConversationEventType, RunDelta } from "@/server/protocol/events.ts";
import type { AgentRole, FormDTO, MessageDTO, PlanDTO, RunDTO } from "@/server/protocol/dto.ts";
import type { Snapshot, SnapshotPlan } from "@/server/protocol/rest/conversations.ts";

export interface AgentInfo {
  id: string;
  handle: string;
  name: string;
  role: AgentRole;
}

export interface ConversationData {
  conversationId: string | null;
  title: string;
  agents: AgentInfo[];
  members: { id: string; name: string }[];
  lastSeq: number;
  /** the newest messages, and every earlier page the reader asked for, oldest first */
  messages: MessageDTO[];
  /** older messages are on the server, not here */
  hasEarlierMessages: boolean;
  /** every plan; `steps` is null for an ended plan whose steps were not read yet (`setPlanSteps`) */
  plans: Record<string, SnapshotPlan>;
  forms: Record<string, FormDTO>;
  /** the runs not ended when the snapshot was read, and every run an event told of since */
  runs: Record<string, RunDTO>;
  /** what the runs that had ended by the snapshot cost (they are not in `runs`) */
  endedUsage: Snapshot["endedUsage"];
  /** streaming text of live runs, by run id (never stored server-side) */
  streams: Record<string, string>;
  /** what a live run is waiting for, by run id (never stored server-side) */
  runStatus: Record<string, string>;
  pending: Record<number, ConversationEventDTO>;
}

interface ConversationActions {
  load: (snapshot: Snapshot) => void;
  /** Applies events in seq order; returns true when a gap is waiting to be filled. */
  applyEvents: (events: ConversationEventDTO[]) => boolean;
  /** appends streamed text; a `reset` delta replaces the run's text (a retried model call) */
  appendDelta: (delta: RunDelta) => void;
  setRunStatus: (status: { conversationId: string; runId: string; text: string | null }) => void;
  upsertMessage: (message: MessageDTO) => void;
  /** the steps of a plan the snapshot sent without them, as read later; a plan of another conversation changes nothing */
  setPlanSteps: (plan: PlanDTO) => void;
  /**
   * A page of earlier messages put before those shown. Messages already here (a copy in
   * both) keep this store's version, which events may have changed since the page was
   * read; a page for another conversation changes nothing.
   */
  prependMessages: (page: { conversationId: string; messages: MessageDTO[]; hasEarlier: boolean; forms: FormDTO[] }) => void;
  /**
   * The conversation's people and agents as the server lists them now (after
   * `members-changed`: someone added or removed an agent or a person). An answer for
   * another conversation (the tab moved on while it was on the way) changes nothing.
   */
  setRoster: (roster: { conversationId: string; agents: AgentInfo[]; members: { id: string; name: string }[] }) => void;
}

export type ConversationStore = ConversationData & ConversationActions;

const EMPTY: ConversationData = {
  conversationId: null,
  title: "",
  agents: [],
  members: [],
  lastSeq: 0,
  messages: [],
  hasEarlierMessages: false,
  plans: {},
  forms: {},
  runs: {},
  endedUsage: { total: { tokens: 0, cost: 0, runs: 0, estimated: false }, byPlan: {} },
  streams: {},
  runStatus: {},
  pending: {},
};

const LIVE_RUN = new Set<RunDTO["status"]>(["queued", "running"]);

function insertMessage(messages: MessageDTO[], message: MessageDTO): MessageDTO[] {
  const at = messages.findIndex((m) => m.id === message.id);
  if (at >= 0) {
    const next = messages.slice();
    next[at] = message;
    return next;
  }
  const next = [...messages, message];
  // server order is createdAt; a late insert (optimistic POST response) keeps it
  if (messages.length && messages[messages.length - 1].createdAt > message.createdAt) {
    next.sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0));
  }
  return next;
}

/** An edit or a deletion changes a message already shown; one not loaded stays unloaded. */
function replaceMessage(messages: MessageDTO[], message: MessageDTO): MessageDTO[] {
  const at = messages.findIndex((m) => m.id === message.id);
  if (at < 0) return messages;
  const next = messages.slice();
  next[at] = message;
  return next;
}

type Reducer<K extends ConversationEventType> = (
  state: ConversationData,
  payload: ConversationEventPayloads[K],
) => Partial<ConversationData>;

/** One handler per event type: a new type is a compile error until handled here. */
const reducers: { [K in ConversationEventType]: Reducer<K> } = {
  "message-created": (state, { message }) => {
    const streams = message.runId && state.streams[message.runId] !== undefined ? omit(state.streams, message.runId) : state.streams;
    return { messages: insertMessage(state.messages, message), streams };
  },
  "message-edited": (state, { message }) => ({ messages: replaceMessage(state.messages, message) }),
  "message-deleted": (state, { message }) => ({ messages: replaceMessage(state.messages, message) }),
  "reactions-changed": (state, { messageId, reactions }) => {
    const message = state.messages.find((m) => m.id === messageId);
    return message ? { messages: replaceMessage(state.messages, { ...message, reactions }) } : {};
  },
  "plan-created": (state, { plan }) => ({ plans: { ...state.plans, [plan.id]: plan } }),
  "plan-updated": (state, { planId, status, endedAt }) => {
    const plan = state.plans[planId];
    return plan ? { plans: { ...state.plans, [planId]: { ...plan, status, endedAt } } } : {};
  },
  "step-updated": (state, { planId, step }) => {
    const plan = state.plans[planId];
    // steps not read yet are read whole when someone opens the plan; an ended plan's do not change
    if (!plan?.steps) return {};
    const exists = plan.steps.some((s) => s.index === step.index);
    const steps = exists
      ? plan.steps.map((s) => (s.index === step.index ? step : s))
      : [...plan.steps, step].sort((a, b) => a.index - b.index);
    return { plans: { ...state.plans, [planId]: { ...plan, steps } } };
  },
  "run-updated": (state, { run }) => ({
    runs: { ...state.runs, [run.id]: run },
    streams: LIVE_RUN.has(run.status) ? state.streams : omit(state.streams, run.id),
    runStatus: LIVE_RUN.has(run.status) ? state.runStatus : omit(state.runStatus, run.id),
  }),
  "form-created": (state, { form }) => ({ forms: { ...state.forms, [form.id]: form } }),
  "form-answered": (state, { form }) => ({ forms: { ...state.forms, [form.id]: form } }),
  "form-closed": (state, { form }) => ({ forms: { ...state.forms, [form.id]: form } }),
};

function omit<T>(record: Record<string, T>, key: string): Record<string, T> {
  if (!(key in record)) return record;
  const { [key]: _removed, ...rest } = record;
  return rest;
}

export function reduceEvent(state: ConversationData, event: ConversationEventDTO): ConversationData {
  const reducer = reducers[event.type] as Reducer<typeof event.type>;
  return { ...state, ...reducer(state, event.payload), lastSeq: event.seq };
}

/** A store of its own (tests, and code that follows several conversations at once). */
export const createConversationStore = () =>
  create<ConversationStore>()((set, get) => ({
    ...EMPTY,
    load(snapshot) {
      set({
        ...EMPTY,
        conversationId: snapshot.conversation.id,
        title: snapshot.conversation.title,
        agents: snapshot.agents,
        members: snapshot.members,
        lastSeq: snapshot.lastSeq,
        messages: snapshot.messages,
        hasEarlierMessages: snapshot.hasEarlierMessages,
        plans: Object.fromEntries(snapshot.plans.map((plan) => [plan.id, plan])),
        forms: Object.fromEntries(snapshot.forms.map((form) => [form.id, form])),
        runs: Object.fromEntries(snapshot.runs.map((run) => [run.id, run])),
        endedUsage: snapshot.endedUsage,
      });
    },
    applyEvents(events) {
      const current = get();
      let state: ConversationData = current;
      const pending = { ...current.pending };
      for (const event of events) {
        if (event.conversationId !== current.conversationId || event.seq <= state.lastSeq) continue;
        pending[event.seq] = event;
      }
      while (pending[state.lastSeq + 1]) {
        const next = pending[state.lastSeq + 1];
        delete pending[next.seq];
        state = reduceEvent(state, next);
      }
      for (const seq of Object.keys(pending).map(Number)) if (seq <= state.lastSeq) delete pending[seq];
      set({ ...state, pending });
      return Object.keys(pending).length > 0;
    },
    appendDelta({ conversationId, runId, text, reset }) {
      const state = get();
      if (conversationId !== state.conversationId) return;
      const run = state.runs[runId];
      if (run && !LIVE_RUN.has(run.status)) return;
      set({ streams: { ...state.streams, [runId]: reset ? text : (state.streams[runId] ?? "") + text } });
    },
    setRunStatus({ conversationId, runId, text }) {
      const state = get();
      if (conversationId !== state.conversationId) return;
      const run = state.runs[runId];
      if (text === null || (run && !LIVE_RUN.has(run.status))) {
        if (state.runStatus[runId] !== undefined) set({ runStatus: omit(state.runStatus, runId) });
        return;
      }
      set({ runStatus: { ...state.runStatus, [runId]: text } });
    },
    upsertMessage(message) {
      const state = get();
      if (message.conversationId !== state.conversationId) return;
      set({ messages: insertMessage(state.messages, message) });
    },
    setPlanSteps(plan) {
      const state = get();
      const known = state.plans[plan.id];
      if (plan.conversationId !== state.conversationId || !known || known.steps) return;
      set({ plans: { ...state.plans, [plan.id]: { ...known, steps: plan.steps } } });
    },
    prependMessages({ conversationId, messages, hasEarlier, forms }) {
      const state = get();
      if (conversationId !== state.conversationId) return;
      const shown = new Set(state.messages.map((message) => message.id));
      // a form the store already holds stays: it came from the snapshot or an event, and
      // every change after that comes as an event too
      set({
        messages: [...messages.filter((message) => !shown.has(message.id)), ...state.messages],
        hasEarlierMessages: hasEarlier,
        forms: { ...Object.fromEntries(forms.map((form) => [form.id, form])), ...state.forms },
      });
    },
    setRoster({ conversationId, agents, members }) {
      if (conversationId !== get().conversationId) return;
      // only the fields the composer and the header use: a view with more (emails, roles of people) is not kept
      set({
        agents: agents.map(({ id, handle, name, role }) => ({ id, handle, name, role })),
        members: members.map(({ id, name }) => ({ id, name })),
      });
    },
  }));

export type ConversationStoreApi = ReturnType<typeof createConversationStore>;

/** The open conversation of this tab. */
export const useConversationStore = createConversationStore();
