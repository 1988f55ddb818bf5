"use client";
import { useConversationStore } from "../stores/conversation-store.ts";

/** What the step's live run is waiting for right now (an in-run retry, a provider that is down), if anything. */
export function useStepRunStatus(planId: string, stepIndex: number): string | null {
  return useConversationStore((state) => {
    for (const [runId, text] of Object.entries(state.runStatus)) {
      const run = state.runs[runId];
      if (run && run.planId === planId && run.stepIndex === stepIndex && run.status === "running") return text;
    }
    return null;
  });
}
