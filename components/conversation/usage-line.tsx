"use client";
import { useMemo } from "react";
import { useTranslations } from "next-intl";
import { useConversationStore } from "../stores/conversation-store.ts";
import { ESTIMATED_NOTE, formatUsage, usageOf } from "./usage-totals.ts";

/** What a plan (with `planId`) or the whole conversation has cost so far (usageOf). */
export function UsageLine({ planId, className = "" }: { planId?: string; className?: string }) {
  const t = useTranslations("conversation");
  const runs = useConversationStore((s) => s.runs);
  const endedUsage = useConversationStore((s) => s.endedUsage);
  const total = useMemo(() => usageOf({ runs, endedUsage }, planId), [runs, endedUsage, planId]);
  if (total.runs === 0) return null;
  return (
    <span
      data-testid={planId ? "plan-usage" : "conversation-usage"}
      data-estimated={total.estimated ? "true" : undefined}
      title={(planId ? t("usagePlan") : t("usageConversation")) + (total.estimated ? ` (${ESTIMATED_NOTE})` : "")}
      className={`text-xs tabular-nums text-zinc-500 ${className}`}
    >
      {formatUsage(total, (figures) => t("usageLine", figures))}
    </span>
  );
}
