/**
 * What one locked transaction decided to do after it commits. Nothing here touches
 * the outside world until the transaction is durable: events are published, runs
 * started and timers set only then.
 */
import type { PendingEvent } from "../adapters/prisma/event-log.ts";
import type { ConversationEventType, ConversationEventPayloads } from "../protocol/events.ts";

export class UnitOfWork {
  readonly events: PendingEvent[] = [];
  readonly runsToStart: string[] = [];
  readonly runsToCancel: string[] = [];
  readonly ticks: { conversationId: string; planId: string; at: number }[] = [];
  /** plans whose ready steps waited for a pool slot; reconcile them when slots free up */
  readonly capacityWaiters: { conversationId: string; planId: string }[] = [];
  /** agents whose runs ended in this transaction (slots freed) */
  readonly freedAgents = new Set<string>();

  constructor(readonly conversationId: string) {}

  emit<K extends ConversationEventType>(type: K, payload: ConversationEventPayloads[K]): void {
    this.events.push({ type, payload } as PendingEvent);
  }
}
