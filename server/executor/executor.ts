/**
 * The executor: every change to a conversation's plans and runs happens in one
 * transaction that first takes the conversation's database lock, so "record what
 * finished" and "decide what runs next" are one atomic unit across processes.
 * After commit it publishes the events, starts the runs and sets the timers.
 */
import { randomUUID } from "node:crypto";
import type { Prisma } from "../generated/prisma/client.ts";
import { assertPlanSize, validatePlan } from "../core/validate-plan.ts";
import { validateFormAnswer, formatFormAnswer, maskSecretAnswers, secretAnswers } from "../core/form-schema.ts";
import type { FormSpec, PlanEvent } from "../core/types.ts";
import { insertPlan } from "../adapters/prisma/plan-repository.ts";
import { formInclude, messageInclude, toFormDTO, toMessageDTO, toPlanDTO } from "../adapters/prisma/serializers.ts";
import type { FormDTO, MessageDTO, PlanDTO, StepDTO } from "../protocol/dto.ts";
import { MAX_MESSAGE_CHARS } from "../protocol/limits.ts";
import { createExecutorContext, type ExecutorContext, type ExecutorDeps } from "./context.ts";
import { BatonError, invalidInput, notFound } from "./errors.ts";
import { UnitRunner, type CommittedUnit } from "./units.ts";
import { applyPlanEvent, reconcilePlan, stepDTO } from "./plan-effects.ts";
import { assertMember, assertPlanMember, type Actor } from "../auth/actor.ts";
import { createRun, runDTO, type RunKind, type RunLaunch } from "./run-records.ts";
import { conversationHandles, finishRun, type RunLogEntry } from "./run-lifecycle.ts";
import { insertMessage } from "./messages.ts";
import type { UnitOfWork } from "./unit-of-work.ts";
import { LeaseKeeper } from "./leases.ts";
import { stopLoneRun, stopTarget } from "./run-stop.ts";
import { addressees, isCommanderReplyMode } from "../core/addressing.ts";
import { personHandles, resolveMentions } from "../protocol/mentions.ts";
import { API_USER_EMAIL } from "../services/seed.ts";

/** A posted message, and the agents it named that are not in the conversation (the UI offers to add them). */
export type PostedMessage = MessageDTO & { notInConversation: string[] };
import { claimRuns, loadLaunch, runContextOf } from "./run-queue.ts";
import type { ClaimedRun, ClaimRequest } from "../adapters/prisma/write-batch.ts";

type Tx = Prisma.TransactionClient;

/** What a member's plan control did: the plan's status after it, and the step it named. */
export interface PlanControlResult {
  planId: string;
  status: PlanDTO["status"];
  step: StepDTO | null;
}

export class Executor {
  readonly context: ExecutorContext;
  private readonly liveRuns = new Map<string, AbortController>();
  private readonly timers = new Map<string, { at: number; cancel(): void }>();
  private readonly inFlight = new Set<Promise<unknown>>();
  /** runs created here and still queued: claiming one here needs no reads */
  private readonly launches = new Map<string, RunLaunch>();
  /** claimed runs whose launch is still being read */
  private starting = 0;
  /** a claim is running; `claimAgain` asks for one more pass after it */
  private claiming: Promise<void> | null = null;
  private claimAgain = false;
  /** this process's own slots, not the pools, last limited a claim: a run ending here should claim again */
  private slotBound = false;
  private readonly leases: LeaseKeeper;
  private stopped = false;
  /** shutting down: claims nothing new, lets live runs finish, then hands the rest back */
  private draining = false;
  private readonly units: UnitRunner;

  constructor(deps: ExecutorDeps) {
    this.context = createExecutorContext(deps);
    this.units = new UnitRunner(
      this.context,
      (uow, committed) => this.afterCommit(uow, committed),
      () => this.claimRequest(),
    );
    this.leases = new LeaseKeeper(this.context, {
      liveRunIds: () => [...this.liveRuns.keys()],
      abortRun: (runId) => this.liveRuns.get(runId)?.abort(),
      runLost: (input) => this.runLost(input),
      tickPlan: (input) => this.tick(input),
      claim: () => this.claimSoon(),
    });
  }

  /** Takes over what a previous process left behind, then keeps leases fresh and sweeps. */
  async start(): Promise<void> {
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
    for (const controller of this.liveRuns.values()) controller.abort();
    await Promise.allSettled([...this.inFlight]);
  }

  /**
   * A graceful stop (SIGTERM): claim nothing new, give live runs `graceMs` to finish, then
   * hand the rest back — each is declared lost now, under the lock, so its step is
   * re-queued at once and another process claims it (instead of waiting for the lease to
   * expire) — and stop. Returns how many runs finished and how many were handed back.
   */
  async drain({ graceMs }: { graceMs: number }): Promise<{ finished: number; handedBack: number }> {
    this.draining = true;
    const live = this.liveRuns.size;
    const deadline = this.context.clock.now() + graceMs;
    while (this.liveRuns.size > 0 && this.context.clock.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    const remaining = [...this.liveRuns.keys()];
    const owned = remaining.length
      ? await this.context.prisma.run.findMany({
          where: { id: { in: remaining }, status: "running" },
          select: { id: true, conversationId: true },
        })
      : [];
    // stop them here first: a run still live on this process is never declared lost
    for (const runId of remaining) this.liveRuns.get(runId)?.abort();
    while (this.liveRuns.size > 0) await new Promise((resolve) => setTimeout(resolve, 10));
    for (const run of owned)
      await this.recordLost({ conversationId: run.conversationId, runId: run.id, reason: "handed back: its process shut down" });
    await this.stop();
    return { finished: live - remaining.length, handedBack: owned.length };
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
    return this.inConversation(input.conversationId, async (tx, uow) => {
      await this.requireConversation(tx, input.conversationId);
      // a person writes only where they are a member, whoever called this
      await assertMember(tx, { id: input.author.userId, role: "member" }, input.conversationId);
      const members = await this.context.agents.roster(tx, input.conversationId);
      const picked = [...new Set((input.mentionHandles ?? []).map((handle) => handle.replace(/^@/, "").toLowerCase()))];
      for (const handle of picked) {
        if (!members.some((agent) => agent.handle === handle))
          throw invalidInput(`mentions: @${handle} is not an agent in this conversation`);
      }
      const [people, workspaceAgents, conversation] = await Promise.all([
        tx.membership.findMany({
          where: { conversationId: input.conversationId, user: { email: { not: API_USER_EMAIL } } },
          select: { user: { select: { name: true } } },
        }),
        tx.agent.findMany({ select: { handle: true } }),
        tx.conversation.findUniqueOrThrow({ where: { id: input.conversationId }, select: { commanderReplies: true } }),
      ]);
      const typed = resolveMentions(body, {
        conversationAgents: members.map((agent) => agent.handle),
        people: people.flatMap((member) => personHandles(member.user.name)),
        workspaceAgents: workspaceAgents.map((agent) => agent.handle),
      });
      const handles = [...new Set([...picked, ...typed.agents])];
      const mentioned = handles.map((handle) => members.find((agent) => agent.handle === handle)!);
      const message = await tx.message.create({
        data: {
          conversationId: input.conversationId,
          authorKind: "user",
          authorUserId: input.author.userId,
          body,
          mentions: mentioned.map((agent) => ({ agentId: agent.id, handle: agent.handle })),
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
        people: people.length,
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
  async submitPlan(input: { conversationId: string; raw: unknown; request?: string; userId?: string }): Promise<PlanDTO> {
    // an oversized plan is refused before it takes the conversation's lock
    assertPlanSize({ raw: input.raw, limits: this.context.config.planLimits });
    return this.inConversation(input.conversationId, async (tx, uow) => {
      await this.requireConversation(tx, input.conversationId);
      const spec = validatePlan({
        raw: input.raw,
        assignees: await conversationHandles(this.context, tx, input.conversationId),
        limits: this.context.config.planLimits,
      });
      const { loaded, row: created } = await insertPlan(tx, {
        conversationId: input.conversationId,
        spec,
        request: input.request ?? spec.title,
        createdByUserId: input.userId,
      });
      uow.cachePlan(loaded); // the reconcile below starts from it instead of reading it again
      uow.emit("plan-created", { plan: toPlanDTO(created) });
      insertMessage(this.context, uow, {
        conversationId: input.conversationId,
        author: { kind: "system" },
        kind: "plan",
        body: `Plan **${spec.title}** submitted (${spec.steps.length} steps)`,
        planId: created.id,
      });
      const saved = await reconcilePlan(this.context, tx, uow, { planId: created.id, event: { type: "plan-created" } });
      // the batch has not written the steps yet: describe the plan from what reconcile decided
      const dto = toPlanDTO(created);
      return saved ? { ...dto, status: saved.state.status, steps: saved.state.steps.map((step) => stepDTO(saved, step)) } : dto;
    });
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
        });
      } else if (current.runId) {
        // A direct mention that asked a question: the same agent session continues.
        const blocked = await tx.run.findUnique({ where: { id: current.runId }, include: { agent: true } });
        if (blocked?.agent && blocked.status === "blocked") {
          const trigger = blocked.triggerMessageId
            ? await tx.message.findUnique({ where: { id: blocked.triggerMessageId }, select: { body: true } })
            : null;
          await createRun(this.context, tx, uow, {
            id: randomUUID(),
            conversationId: blocked.conversationId,
            agent: blocked.agent,
            kind: "mention",
            input: blocked.input,
            request: { text: trigger?.body ?? blocked.input, messageId: blocked.triggerMessageId },
            resume: { previousRunId: blocked.id, answer: forAgent?.answer ?? formatFormAnswer(spec, shown), secrets },
            triggerMessageId: blocked.triggerMessageId,
          });
        }
      }
      return dto;
    });
  }

  /** An admin created or edited an agent: this process stops using its cached copy now. */
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
  inConversation<T>(
    conversationId: string,
    work: (tx: Tx, uow: UnitOfWork) => Promise<T>,
    plan?: { planId: string; runId?: string },
  ): Promise<T> {
    return this.units.run(conversationId, work, plan);
  }

  /** how units of work ran (optimistic, conflicts, locked) */
  get stats() {
    return this.units.stats;
  }

  private afterCommit(uow: UnitOfWork, committed: CommittedUnit): void {
    for (const plan of uow.plans.values()) this.context.plans.set(plan);
    if (committed.published.length > 0) this.context.publisher.publish(committed.published);
    for (const runId of uow.runsToCancel) this.liveRuns.get(runId)?.abort();
    for (const tick of uow.ticks) this.scheduleTick(tick);
    for (const launch of uow.runsCreated) this.rememberLaunch(launch);
    const announced = new Set(uow.runsCreated.map((launch) => launch.request.runId));
    this.startClaimed(committed.claimed, announced);
  }

  // ─── The run queue (run-queue.ts) ──────────────────────────────────────────

  /** What this process may claim now: a worker's free slots (a web node claims nothing). */
  private claimRequest(): ClaimRequest | null {
    const { role, workerSlots, leaseMs, modelConcurrency } = this.context.config;
    if (this.stopped || this.draining || role === "web") return null;
    const max = workerSlots - this.liveRuns.size - this.starting;
    if (max <= 0) this.slotBound = true;
    return max > 0 ? { owner: this.context.instanceId, leaseMs, max, modelLimits: modelConcurrency } : null;
  }

  private rememberLaunch(launch: RunLaunch): void {
    this.launches.set(launch.request.runId, launch);
    // a launch another process claimed is never asked for here: keep the newest only
    if (this.launches.size > 2_000) this.launches.delete(this.launches.keys().next().value!);
  }

  /**
   * Claims queued runs of every pool with room for this process (a freed slot
   * somewhere, the sweep, start-up). Coalesced: one claim at a time, and one more
   * pass if asked again meanwhile.
   */
  claimSoon(): void {
    if (this.claiming) {
      this.claimAgain = true;
      return;
    }
    const pass = async () => {
      do {
        this.claimAgain = false;
        const request = this.claimRequest();
        if (!request) return;
        const claimed = await claimRuns(this.context.prisma, request);
        this.slotBound = claimed.length === request.max;
        this.startClaimed(claimed, new Set());
      } while (this.claimAgain && !this.stopped);
    };
    this.claiming = pass()
      .catch((error) => this.context.logger.warn("[run-queue]", error))
      .finally(() => {
        this.claiming = null;
      });
    this.track(this.claiming);
  }

  /** Starts runs claimed for this process; those no unit announced get their `running` event. */
  private startClaimed(claimed: ClaimedRun[], announced: ReadonlySet<string>): void {
    for (const run of claimed) {
      const known = this.launches.get(run.id);
      this.launches.delete(run.id);
      this.starting += 1;
      this.track(
        (async () => {
          let launch: RunLaunch | null;
          try {
            launch = known ? { ...known, startedAt: new Date(run.startedAt) } : await loadLaunch(this.context, run.id);
            if (launch && !announced.has(run.id)) await this.announceRunning(launch);
          } finally {
            this.starting -= 1;
          }
          if (launch) await this.executeRun(launch);
        })(),
      );
    }
  }

  /** A run that waited in the queue tells its conversation it started. */
  private announceRunning(launch: RunLaunch): Promise<void> {
    return this.units.appendEvents(launch.request.conversationId, [
      { type: "run-updated", payload: { run: runDTO(launch, { status: "running", endedAt: null, error: null, usage: null }) } },
    ]);
  }

  private track(promise: Promise<unknown>): void {
    const tracked = promise.catch((error) => this.context.logger.error("[executor]", error));
    this.inFlight.add(tracked);
    void tracked.finally(() => this.inFlight.delete(tracked));
  }

  private async executeRun(launch: RunLaunch): Promise<void> {
    if (this.stopped) return;
    const { runId, conversationId } = launch.request;
    const controller = new AbortController();
    this.liveRuns.set(runId, controller);
    const logs: RunLogEntry[] = [];
    try {
      let result;
      try {
        result = await this.context.runner.run(
          { ...launch.request, signal: controller.signal },
          {
            textDelta: (delta) => this.context.publisher.runDelta(conversationId, runId, delta),
            log: (entry) => logs.push(entry),
            status: (text) => this.context.publisher.runStatus?.(conversationId, runId, text),
            resetText: (text) => this.context.publisher.runDelta(conversationId, runId, text, { reset: true }),
          },
        );
      } catch (error) {
        result = {
          kind: "failed" as const,
          transient: false,
          reason: `the agent runtime crashed: ${error instanceof Error ? error.message : String(error)}`,
          usage: { tokensIn: 0, tokensOut: 0, cost: 0 },
        };
      }
      if (controller.signal.aborted || this.stopped) return;
      await this.inConversation(
        conversationId,
        (tx, uow) => finishRun(this.context, tx, uow, { launch, result, logs }),
        launch.planId ? { planId: launch.planId, runId } : undefined,
      );
    } finally {
      this.liveRuns.delete(runId);
      // a slot of this process freed up while runs may wait for one (the pools' own
      // slots were handed on by the unit that recorded the end)
      if (this.slotBound && !this.stopped) this.claimSoon();
    }
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

  /** A run whose process died: a transient failure of its step, decided under the lock. */
  private async runLost(input: { conversationId: string; runId: string }): Promise<void> {
    await this.recordLost(input);
    // the lost run's slot is free now: hand it to whoever waits in its pool
    this.claimSoon();
  }

  private recordLost(input: { conversationId: string; runId: string; reason?: string }): Promise<void> {
    return this.inConversation(input.conversationId, async (tx, uow) => {
      const run = await tx.run.findUnique({ where: { id: input.runId }, include: { step: true, agent: true } });
      // a queued run has no owner to lose: it waits to be claimed
      if (!run || run.status !== "running") return;
      const now = new Date(this.context.clock.now());
      // Re-checked under the lock: only a lease that is really gone is taken over.
      if (run.leaseOwner === this.context.instanceId && this.liveRuns.has(run.id)) return;
      await tx.run.update({
        where: { id: run.id },
        data: { status: "lost", endedAt: now, error: input.reason ?? "the run was lost (its process stopped)", leaseOwner: null },
      });
      if (run.planId && run.step && (run.kind === "step" || run.kind === "commander-step")) {
        await reconcilePlan(this.context, tx, uow, {
          planId: run.planId,
          event: { type: "run-lost", stepIndex: run.step.index, runId: run.id },
        });
      } else if (run.agent && run.attempt < 2) {
        // Runs outside a plan step (mentions, chat, decisions) are re-dispatched once.
        const plan = run.planId ? await tx.plan.findUnique({ where: { id: run.planId } }) : null;
        const trigger = run.triggerMessageId
          ? await tx.message.findUnique({ where: { id: run.triggerMessageId }, select: { body: true } })
          : null;
        await createRun(this.context, tx, uow, {
          id: randomUUID(),
          conversationId: run.conversationId,
          agent: run.agent,
          kind: run.kind as RunKind,
          input: run.input,
          request: plan
            ? { text: plan.request, messageId: plan.requestMessageId }
            : { text: trigger?.body ?? run.input, messageId: run.triggerMessageId },
          ...runContextOf(run),
          attempt: run.attempt + 1,
          triggerMessageId: run.triggerMessageId,
        });
      }
    });
  }
}
