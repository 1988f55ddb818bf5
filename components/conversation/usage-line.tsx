"use client";
import { useMemo } from "react";
import { useConversationStore } from "../stores/conversation-store.ts";
import { ESTIMATED_NOTE, formatUsage, usageOf } from "./usage-totals.ts";

/** What a plan (with `planId`) or the whole conversation has cost so far (usageOf). */
export function UsageLine({ planId, className = "" }: { planId?: string; className?: string }) {
  const runs = useConversationStore((s) => s.runs);
  const endedUsage = useConversationStore((s) => s.endedUsage);
  const total = useMemo(() => usageOf({ runs, endedUsage }, planId), [runs, endedUsage, planId]);
  if (total.runs === 0) return null;
  return (
    <span
      data-testid={planId ? "plan-usage" : "conversation-usage"}
      data-estimated={total.estimated ? "true" : undefined}
      title={
        (planId ? "Tokens and cost of this plan, its planning call included" : "Tokens and cost of every agent run in this conversation") +
        (total.estimated ? ` (${ESTIMATED_NOTE})` : "")
      }
      className={`text-xs tabular-nums text-zinc-500 ${className}`}
    >
      {formatUsage(total)}
    </span>
  );
}
