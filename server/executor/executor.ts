/**
 * The executor: every change to a conversation's plans and runs happens in one
 * transaction that first takes the conversation's database lock, so "record what
 * finished" and "decide what runs next" are one atomic unit across processes.
 * After commit it publishes the events, starts the runs and sets the timers.
 */
import { randomUUID } from "node:crypto";
import type { Prisma } from "../generated/prisma/client.ts";
import { assertPlanSize } from "../core/validate-plan.ts";
import { validateFormAnswer, formatFormAnswer, maskSecretAnswers, secretAnswers } from "../core/form-schema.ts";
import type { FormSpec, PlanEvent } from "../core/types.ts";
import { formInclude, messageInclude, toFormDTO, toMessageDTO } from "../adapters/prisma/serializers.ts";
import type { FormDTO, MessageDTO, PlanDTO, StepDTO } from "../protocol/dto.ts";
import { MAX_MESSAGE_CHARS } from "../protocol/limits.ts";
import { createExecutorContext, type ExecutorContext, type ExecutorDeps } from "./context.ts";
import { BatonError, invalidInput, notFound } from "./errors.ts";
import { NOT_FOUND_MARKER } from "../adapters/prisma/write-batch.ts";
import { UnitRunner, type CommittedUnit, type UnitPlan } from "./units.ts";
import { applyPlanEvent, reconcilePlan, stepDTO } from "./plan-effects.ts";
import { assertMember, assertPlanMember, type Actor } from "../auth/actor.ts";
import { createRun } from "./run-records.ts";
import { RunWorker } from "./run-worker.ts";
import { storedRequest } from "./run-queue.ts";
import { createPlan } from "./plan-creation.ts";
import { insertMessage } from "./messages.ts";
import type { UnitOfWork } from "./unit-of-work.ts";
import { LeaseKeeper } from "./leases.ts";
import { stopLoneRun, stopTarget } from "./run-stop.ts";
import { addressees, isCommanderReplyMode } from "../core/addressing.ts";
import { plural } from "../core/plural.ts";
import { personHandles, resolveMentions } from "../protocol/mentions.ts";
import { API_USER_EMAIL } from "../services/seed.ts";
import { traceEndedPlans } from "../observability/tracing.ts";
import { isStorableText, UNSTORABLE_TEXT_MESSAGE } from "../core/text.ts";

/** A posted message, and the agents it named that are not in the conversation (the UI offers to add them). */
export type PostedMessage = MessageDTO & { notInConversation: string[] };
type Tx = Prisma.TransactionClient;

/** What a member's plan control did: the plan's status after it, and the step it named. */
export interface PlanControlResult {
  planId: string;
  status: PlanDTO["status"];
  step: StepDTO | null;
}

export class Executor {
  readonly context: ExecutorContext;
  private readonly timers = new Map<string, { at: number; cancel(): void }>();
  private readonly inFlight = new Set<Promise<unknown>>();
  private readonly leases: LeaseKeeper;
  private stopped = false;
  private readonly units: UnitRunner;
  /** this process's side of the run queue: claims, live runs, lost runs (run-worker.ts) */
  private readonly worker: RunWorker;

  constructor(deps: ExecutorDeps) {
    this.context = createExecutorContext(deps);
    this.units = new UnitRunner(
      this.context,
      {
        writing: (uow) => this.worker.startEarly(uow.runsCreated),
        committed: (uow, committed) => this.afterCommit(uow, committed),
        abandoned: (uow) => this.worker.abandonEarly(uow.runsCreated),
      },
      () => this.worker.claimRequest({ inStatement: true }),
    );
    this.worker = new RunWorker(this.context, {
      inConversation: (conversationId, work, plan) => this.inConversation(conversationId, work, plan),
      appendEvents: (conversationId, events) => this.units.appendEvents(conversationId, events),
      track: (promise) => this.track(promise),
      stopped: () => this.stopped,
    });
    this.leases = new LeaseKeeper(this.context, {
      liveRunIds: () => this.worker.liveRunIds,
      abortRun: (runId) => this.worker.abort(runId),
      abortAll: () => this.worker.stopAll({ timeoutMs: 10_000 }),
      runLost: (input) => this.worker.runLost(input),
      tickPlan: (input) => this.tick(input),
      claim: () => this.claimSoon(),
      clusterLoad: (load) => this.worker.setClusterLoad(load),
    });
  }

  /** Takes over what a previous process left behind, then keeps leases fresh and sweeps. */
  async start(): Promise<void> {
    // the liveness lock first: a run claimed before it is held would look orphaned to the others
    await this.context.liveness?.start();
    await this.leases.recover();
    this.leases.start();
    this.unlisten = (await this.context.notifications?.listen(() => this.claimSoon())) ?? null;
    this.claimSoon();
  }

  private unlisten: (() => Promise<void>) | null = null;

  /** Stops timers and waits for in-flight bookkeeping; live runs are aborted. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.leases.stop();
    await this.unlisten?.().catch(() => undefined);
    for (const timer of this.timers.values()) timer.cancel();
    this.timers.clear();
    this.worker.abortAll();
    await Promise.allSettled([...this.inFlight]);
  }

  /**
   * A graceful stop (SIGTERM): claim nothing new, give live runs `graceMs` to finish, then
   * hand the rest back — each is declared lost now, under the lock, so its step is
   * re-queued at once and another process claims it (instead of waiting for the lease to
   * expire) — and stop. Returns how many runs finished and how many were handed back.
   */
  async drain({ graceMs }: { graceMs: number }): Promise<{ finished: number; handedBack: number }> {
    const drained = await this.worker.drain({ graceMs });
    await this.stop();
    return drained;
  }

  /** Resolves when no run started by this process is live (tests and benchmarks). */
  async idle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  // ─── Entry points ──────────────────────────────────────────────────────────

  /** A person's message. Structured mentions start those agents; no mention wakes the commander. */
  /**
   * A person's message. Its mentions are the handles the person picked (mentionHandles)
   * and the ones typed in full (tokenised by the one shared function); who answers is
   * decided by core/addressing.ts.
   */
  async postMessage(input: {
    conversationId: string;
    author: { kind: "user"; userId: string };
    body: string;
    mentionHandles?: string[];
    attachmentIds?: string[];
  }): Promise<PostedMessage> {
    const body = input.body.trim();
    if (!body && !input.attachmentIds?.length) throw invalidInput("body: a message needs text or an attachment");
    if (body.length > MAX_MESSAGE_CHARS) throw invalidInput(`body: longer than ${MAX_MESSAGE_CHARS} characters`);
    // every caller (REST, socket, services) gets the same answer for text the database would refuse
    if (!isStorableText(body)) throw invalidInput(`body: ${UNSTORABLE_TEXT_MESSAGE}`);
    return this.inConversation(input.conversationId, async (tx, uow) => {
      await this.requireConversation(tx, input.conversationId);
      // a person writes only where they are a member, whoever called this
      await assertMember(tx, { id: input.author.userId, role: "member" }, input.conversationId);
      const members = await this.context.agents.roster(tx, input.conversationId, { fresh: true });
      const picked = [...new Set((input.mentionHandles ?? []).map((handle) => handle.replace(/^@/, "").toLowerCase()))];
      for (const handle of picked) {
        if (!members.some((agent) => agent.handle === handle))
          throw invalidInput(`mentions: @${handle} is not an agent in this conversation`);
      }
      const people = await tx.membership.findMany({
        where: { conversationId: input.conversationId, user: { email: { not: API_USER_EMAIL } } },
        select: { user: { select: { id: true, name: true } } },
      });
      const workspaceAgents = await tx.agent.findMany({ select: { handle: true } });
      const conversation = await tx.conversation.findUniqueOrThrow({
        where: { id: input.conversationId },
        select: { commanderReplies: true },
      });
      const typed = resolveMentions(body, {
        conversationAgents: members.map((agent) => agent.handle),
        people: people.flatMap((member) => personHandles(member.user.name)),
        workspaceAgents: workspaceAgents.map((agent) => agent.handle),
      });
      const handles = [...new Set([...picked, ...typed.agents])];
      const mentioned = handles.map((handle) => members.find((agent) => agent.handle === handle)!);
      // people named by a typed @handle: a structured mention too (they are notified; no agent wakes)
      const mentionedPeople = typed.people.flatMap((handle) => {
        const person = people.find((member) => personHandles(member.user.name).includes(handle));
        return person ? [{ userId: person.user.id, handle }] : [];
      });
      const message = await tx.message.create({
        data: {
          conversationId: input.conversationId,
          authorKind: "user",
          authorUserId: input.author.userId,
          body,
          mentions: [...mentioned.map((agent) => ({ agentId: agent.id, handle: agent.handle })), ...mentionedPeople],
        },
      });
      if (input.attachmentIds?.length) {
        const attached = await tx.artifact.updateMany({
          where: { id: { in: input.attachmentIds }, conversationId: input.conversationId, messageId: null },
          data: { messageId: message.id },
        });
        if (attached.count !== input.attachmentIds.length) throw invalidInput("attachmentIds: unknown or already used upload");
      }
      const full = await tx.message.findUniqueOrThrow({ where: { id: message.id }, include: messageInclude });
      uow.emit("message-created", { message: toMessageDTO(full) });

      const who = addressees({
        mode: isCommanderReplyMode(conversation.commanderReplies) ? conversation.commanderReplies : "auto",
        mentionedAgents: handles,
        mentionedPeople: typed.people,
        outsideAgents: typed.outsideAgents,
      });
      const targets =
        who.kind === "agents"
          ? mentioned
          : who.kind === "commander"
            ? [await this.context.agents.commanderFor(tx, input.conversationId)]
            : [];
      for (const agent of targets) {
        await createRun(this.context, tx, uow, {
          id: randomUUID(),
          conversationId: input.conversationId,
          agent,
          kind: agent.role === "commander" ? "chat" : "mention",
          input: body,
          request: { text: body, messageId: message.id },
          triggerMessageId: message.id,
        });
      }
      return { ...toMessageDTO(full), notInConversation: typed.outsideAgents };
    });
  }

  /** A plan submitted directly (API, automation): validated exactly like the commander's. */
  async submitPlan(input: { conversationId: string; raw: unknown; request?: string; userId?: string; planId?: string }): Promise<PlanDTO> {
    // an oversized plan is refused before it takes the conversation's lock
    assertPlanSize({ raw: input.raw, limits: this.context.config.planLimits });
    // named up front, so the unit can run optimistically: its one statement inserts the
    // plan and dispatches its first steps (and refuses a conversation that is not there)
    const planId = input.planId ?? randomUUID();
    const work = async (tx: Tx, uow: UnitOfWork) => {
      const { dto, saved } = await createPlan(this.context, tx, uow, {
        planId,
        conversationId: input.conversationId,
        raw: input.raw,
        request: input.request,
        createdByUserId: input.userId,
        announce: (spec) =>
          insertMessage(this.context, uow, {
            conversationId: input.conversationId,
            author: { kind: "system" },
            kind: "plan",
            body: `Plan **${spec.title}** submitted (${plural(spec.steps.length, "step")})`,
            planId,
          }),
      });
      // the batch has not written the steps yet: describe the plan from what reconcile decided
      return saved ? { ...dto, status: saved.state.status, steps: saved.state.steps.map((step) => stepDTO(saved, step)) } : dto;
    };
    try {
      return await this.inConversation(input.conversationId, work, { planId, created: true });
    } catch (error) {
      if (String((error as Error)?.message ?? error).includes(NOT_FOUND_MARKER)) throw notFound("conversation");
      throw error;
    }
  }

  /** A person answers an open form; the step (or the agent's session) resumes. */
  async answerForm(input: { formId: string; userId: string; values: unknown }): Promise<FormDTO> {
    const form = await this.context.prisma.form.findUnique({ where: { id: input.formId } });
    if (!form) throw notFound("form");
    return this.inConversation(form.conversationId, async (tx, uow) => {
      await assertMember(tx, { id: input.userId, role: "member" }, form.conversationId);
      const current = await tx.form.findUniqueOrThrow({ where: { id: input.formId } });
      if (current.status !== "open") throw new BatonError("form_closed", "this form has already been answered");
      const spec: FormSpec = { title: current.title, fields: current.fields as unknown as FormSpec["fields"] };
      const values = validateFormAnswer(spec, input.values);
      // secret values go to the asking run only: stored, broadcast and summarised masked
      const shown = maskSecretAnswers(spec, values);
      const secrets = secretAnswers(spec, values);
      const forAgent = secrets.length > 0 ? { answer: formatFormAnswer(spec, values), secrets } : undefined;
      await tx.formAnswer.create({ data: { formId: current.id, userId: input.userId, values: shown } });
      await tx.form.update({ where: { id: current.id }, data: { status: "answered" } });
      const step = current.stepId ? await tx.planStep.findUnique({ where: { id: current.stepId } }) : null;
      const answered = await tx.form.findUniqueOrThrow({ where: { id: current.id }, include: formInclude });
      const dto = toFormDTO(answered, step?.index ?? null);
      uow.emit("form-answered", { form: dto });
      if (current.planId && step) {
        await reconcilePlan(this.context, tx, uow, {
          planId: current.planId,
          event: { type: "form-answered", stepIndex: step.index, summary: formatFormAnswer(spec, shown), forAgent },
          bumpVersion: true, // a form changed: see transactionRequired (unit-of-work.ts)
        });
      } else if (current.runId) {
        // A direct mention that asked a question: the same agent session continues.
        const blocked = await tx.run.findUnique({ where: { id: current.runId }, include: { agent: true } });
        if (blocked?.agent && blocked.status === "blocked") {
          await createRun(this.context, tx, uow, {
            id: randomUUID(),
            conversationId: blocked.conversationId,
            agent: blocked.agent,
            kind: "mention",
            input: blocked.input,
            request: await storedRequest(tx, { ...blocked, planId: null }),
            resume: { previousRunId: blocked.id, answer: forAgent?.answer ?? formatFormAnswer(spec, shown), secrets },
            triggerMessageId: blocked.triggerMessageId,
          });
        }
      }
      return dto;
    });
  }

  /** An admin created or edited an agent, or an owner added or removed one: this process stops using its cached copy now. */
  agentsChanged(): void {
    this.context.agents.invalidate();
  }

  // A member's controls answer with what happened: the plan as it now is, or a
  // `conflict` naming why the control cannot apply (the plan ended, the step is
  // not failed…) or `not_found` for a plan or step that does not exist.

  cancelPlan(input: { actor: Actor; planId: string; reason: string }): Promise<PlanControlResult> {
    return this.planControl(input, { type: "cancel", reason: input.reason });
  }

  /** A member's Stop: a direct mention's or commander reply's run stops; a plan's run stops its plan. */
  async stopRun(input: {
    actor: Actor;
    conversationId: string;
    runId: string;
    reason?: string;
  }): Promise<{ stopped: "run" | "plan"; planId: string | null }> {
    const target = await stopTarget(this.context.prisma, input);
    if (target.kind === "plan") {
      await this.cancelPlan({ actor: input.actor, planId: target.planId, reason: input.reason ?? "stopped by a member" });
      return { stopped: "plan", planId: target.planId };
    }
    await this.inConversation(input.conversationId, (tx, uow) => stopLoneRun(this.context, tx, uow, input));
    return { stopped: "run", planId: null };
  }

  retryStep(input: { actor: Actor; planId: string; stepIndex: number }): Promise<PlanControlResult> {
    return this.planControl(input, { type: "retry-step", stepIndex: input.stepIndex });
  }

  skipStep(input: { actor: Actor; planId: string; stepIndex: number; reason: string }): Promise<PlanControlResult> {
    return this.planControl(input, { type: "skip-step", stepIndex: input.stepIndex, reason: input.reason });
  }

  // ─── Internals ─────────────────────────────────────────────────────────────

  private async planControl(input: { actor: Actor; planId: string }, event: PlanEvent): Promise<PlanControlResult> {
    const { planId } = input;
    const found = await this.context.prisma.plan.findUnique({ where: { id: planId }, select: { conversationId: true } });
    if (!found) throw notFound("plan");
    const outcome = await this.inConversation(
      found.conversationId,
      async (tx, uow) => {
        await assertPlanMember(tx, input.actor, planId);
        return applyPlanEvent(this.context, tx, uow, { planId, event });
      },
      { planId },
    );
    // thrown after the unit committed, so the refusal stays in the plan's execution log
    if (!outcome) throw notFound("plan");
    const { plan, ignored } = outcome;
    const stepIndex = "stepIndex" in event ? event.stepIndex : null;
    const step = stepIndex === null ? undefined : plan.state.steps.find((candidate) => candidate.index === stepIndex);
    if (stepIndex !== null && !step) throw new BatonError("not_found", `step ${stepIndex} was not found in this plan`);
    if (ignored) throw new BatonError("conflict", ignored);
    return { planId, status: plan.state.status, step: step ? stepDTO(plan, step) : null };
  }

  private async requireConversation(tx: Tx, conversationId: string): Promise<void> {
    const exists = await tx.conversation.findUnique({ where: { id: conversationId }, select: { id: true } });
    if (!exists) throw notFound("conversation");
  }

  /**
   * The one way to change a conversation (see units.ts): `plan` names the plan (and
   * run) the work will reconcile, which lets it run optimistically.
   */
  inConversation<T>(conversationId: string, work: (tx: Tx, uow: UnitOfWork) => Promise<T>, plan?: UnitPlan): Promise<T> {
    return this.units.run(conversationId, work, plan);
  }

  /** how units of work ran (optimistic, conflicts, locked) */
  get stats() {
    return this.units.stats;
  }

  /** runs started before their unit committed, and how many were confirmed or abandoned */
  get earlyStarts() {
    return { ...this.worker.earlyStarts };
  }

  private afterCommit(uow: UnitOfWork, committed: CommittedUnit): void {
    for (const plan of uow.plans.values()) this.context.plans.set(plan);
    if (committed.published.length > 0) this.context.publisher.publish(committed.published, { othersTold: committed.othersTold });
    traceEndedPlans(this.context.prisma, committed.published);
    for (const runId of uow.runsToCancel) this.worker.abort(runId);
    for (const tick of uow.ticks) this.scheduleTick(tick);
    this.worker.afterCommit(uow.runsCreated, committed.claimed);
  }

  /**
   * Claims queued runs of every pool with room for this process (a freed slot
   * somewhere, the sweep, start-up); see run-worker.ts.
   */
  claimSoon(): void {
    this.worker.claimSoon();
  }

  private track(promise: Promise<unknown>): void {
    const tracked = promise.catch((error) => this.context.logger.error("[executor]", error));
    this.inFlight.add(tracked);
    void tracked.finally(() => this.inFlight.delete(tracked));
  }

  private scheduleTick(input: { conversationId: string; planId: string; at: number }): void {
    if (this.stopped) return;
    const existing = this.timers.get(input.planId);
    if (existing && existing.at <= input.at) return;
    existing?.cancel();
    const timer = this.context.clock.setTimer(input.at, () => {
      this.timers.delete(input.planId);
      this.track(this.tick(input));
    });
    this.timers.set(input.planId, { at: input.at, cancel: () => timer.cancel() });
  }

  /** Re-computes readiness of one plan (retry timers, freed pool slots, recovery). */
  tick(input: { conversationId: string; planId: string }): Promise<void> {
    return this.inConversation(
      input.conversationId,
      async (tx, uow) => {
        await reconcilePlan(this.context, tx, uow, { planId: input.planId, event: { type: "tick" } });
      },
      { planId: input.planId },
    );
  }
}
