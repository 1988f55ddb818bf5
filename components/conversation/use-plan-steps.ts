"use client";
import { useEffect, useState } from "react";
import type { SnapshotPlan } from "@/server/protocol/rest/conversations.ts";
import { api, ApiError } from "../api-client.ts";
import { useConversationStore } from "../stores/conversation-store.ts";

/**
 * Reads the steps of a plan the snapshot sent without them (an ended plan none of the
 * newest messages belongs to) once someone opens it. Returns why the read failed, if it
 * did, and a way to try again.
 */
export function usePlanSteps(conversationId: string, plan: SnapshotPlan | undefined): { failed: string | null; retry: () => void } {
  const missing = plan && plan.steps === null ? plan.id : null;
  const [failure, setFailure] = useState<{ planId: string; attempt: number; reason: string } | null>(null);
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    if (!missing) return;
    let stale = false;
    api.conversations
      .plan({ conversationId, planId: missing })
      .then(({ plan: read }) => !stale && useConversationStore.getState().setPlanSteps(read))
      .catch((caught: unknown) => {
        if (stale) return;
        setFailure({ planId: missing, attempt, reason: caught instanceof ApiError ? caught.message : "the server did not answer" });
      });
    return () => {
      stale = true;
    };
  }, [conversationId, missing, attempt]);

  // a failure belongs to the plan and attempt it happened on: choosing another plan or retrying clears it
  const failed = failure && failure.planId === missing && failure.attempt === attempt ? failure.reason : null;
  return { failed, retry: () => setAttempt((count) => count + 1) };
}
