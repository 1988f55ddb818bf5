/**
 * SQL functions Baton's hot path calls (one round trip each). They are (re)created each time a database is
 * opened rather than shipped as a migration, because the PostgreSQL driver adapter
 * applies migration scripts by splitting them on ";" — which breaks any function body.
 * Prisma's schema does not describe functions, so migrations never touch them.
 */

/**
 * Takes a conversation's lock and reads what a reconcile needs, in one round trip.
 * A VOLATILE plpgsql function runs each statement with a fresh snapshot, so the read
 * sees everything committed before the lock was granted (a plain SELECT that locks in
 * its target list would read from a snapshot taken before it waited).
 */
export const ENTER_CONVERSATION_FUNCTION = `
CREATE OR REPLACE FUNCTION baton_enter_conversation(lock_key text, plan_id text, run_id text)
RETURNS TABLE ("version" integer, "live" json, "runStatus" text)
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  -- without a key it is only the read (the optimistic path locks when it writes)
  IF lock_key IS NOT NULL THEN
    PERFORM pg_advisory_xact_lock(hashtextextended(lock_key, 0));
  END IF;
  RETURN QUERY SELECT
    (SELECT p."version" FROM "Plan" p WHERE p."id" = plan_id),
    (SELECT json_object_agg(t."agentId", t.n) FROM (
       SELECT r."agentId", count(*)::int AS n FROM "Run" r
       WHERE r."status" IN ('queued'::"RunStatus", 'running'::"RunStatus") AND r."agentId" IS NOT NULL
         AND (r."planId" IS NULL OR plan_id IS NULL OR r."planId" <> plan_id)
       GROUP BY r."agentId") t),
    (SELECT r."status"::text FROM "Run" r WHERE r."id" = run_id);
END
$$;`;

/**
 * Applies one unit of work's batched writes (adapters/prisma/write-batch.ts) from a
 * single JSON document, table by table, then appends the conversation's events with
 * gap-free seq (the row lock on Conversation orders concurrent writers) and returns
 * the new lastSeq. Statements run in order, each seeing the ones before it. With
 * `expect`, it is the whole optimistic unit on its own: lock, verify, write.
 */
export const APPLY_WRITES_FUNCTION = `
CREATE OR REPLACE FUNCTION baton_apply_writes(doc jsonb)
RETURNS integer
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  event_count integer := coalesce(jsonb_array_length(doc->'events'), 0);
  now_at timestamp(3) := (doc->>'now')::timestamp(3);
  last_seq integer := NULL;
  expected jsonb := doc->'expect';
BEGIN
  -- Optimistic use (one statement, no surrounding transaction): take the lock, then
  -- check that what the caller decided from is still true; if not, write nothing.
  IF expected IS NOT NULL AND jsonb_typeof(expected) = 'object' THEN
    PERFORM pg_advisory_xact_lock(hashtextextended(expected->>'lockKey', 0));
    IF (SELECT p."version" FROM "Plan" p WHERE p."id" = expected->>'planId') IS DISTINCT FROM (expected->>'version')::integer
       OR (expected->>'runId' IS NOT NULL AND
           (SELECT r."status"::text FROM "Run" r WHERE r."id" = expected->>'runId') IS DISTINCT FROM expected->>'runStatus') THEN
      RAISE EXCEPTION 'baton_conflict: the plan changed since it was read';
    END IF;
  END IF;
  INSERT INTO "Message" ("id", "conversationId", "authorKind", "authorAgentId", "kind", "body", "mentions", "planId", "stepId", "runId", "formId", "createdAt")
    SELECT x."id", x."conversationId", x."authorKind", x."authorAgentId", x."kind", x."body", x."mentions", x."planId", x."stepId", x."runId", x."formId", x."createdAt"
    FROM jsonb_populate_recordset(NULL::"Message", coalesce(doc->'messages', '[]')) x;

  INSERT INTO "Run" ("id", "conversationId", "agentId", "planId", "stepId", "kind", "attempt", "status", "input", "model",
                     "triggerMessageId", "resumesRunId", "leaseOwner", "leaseExpiresAt", "createdAt", "startedAt")
    SELECT x."id", x."conversationId", x."agentId", x."planId", x."stepId", x."kind", x."attempt", 'running', x."input", x."model",
           x."triggerMessageId", x."resumesRunId", x."leaseOwner", x."leaseExpiresAt", x."startedAt", x."startedAt"
    FROM jsonb_populate_recordset(NULL::"Run", coalesce(doc->'runs', '[]')) x;

  UPDATE "Run" r SET "status" = x."status", "endedAt" = x."endedAt", "error" = x."error",
      "tokensIn" = x."tokensIn", "tokensOut" = x."tokensOut", "cost" = x."cost", "leaseExpiresAt" = NULL
    FROM jsonb_populate_recordset(NULL::"Run", coalesce(doc->'finishedRuns', '[]')) x
    WHERE r."id" = x."id" AND r."status" = 'running';

  UPDATE "Run" r SET "status" = 'cancelled', "endedAt" = x."endedAt", "error" = 'cancelled'
    FROM jsonb_populate_recordset(NULL::"Run", coalesce(doc->'cancelledRuns', '[]')) x
    WHERE r."id" = x."id" AND r."status" IN ('queued', 'running');

  UPDATE "Form" SET "status" = 'cancelled'
    WHERE "id" IN (SELECT jsonb_array_elements_text(coalesce(doc->'closedForms', '[]'))) AND "status" = 'open';

  UPDATE "Plan" p SET "version" = x."version", "updatedAt" = x."updatedAt",
      "status" = CASE WHEN x."setStatus" THEN x."status"::"PlanStatus" ELSE p."status" END,
      "endedAt" = CASE WHEN x."setStatus" THEN x."endedAt" ELSE p."endedAt" END
    FROM jsonb_to_recordset(coalesce(doc->'plans', '[]'))
      AS x("id" text, "version" integer, "updatedAt" timestamp(3), "setStatus" boolean, "status" text, "endedAt" timestamp(3))
    WHERE p."id" = x."id";

  UPDATE "PlanStep" s SET
      ("title", "assignee", "input", "waitFor", "optionalWaitFor", "quorum", "budgetTokens", "budgetCost",
       "forEachFrom", "forEachField", "forEachMaxParallel", "expansion", "parentIndex", "onFailure", "maxRetries",
       "status", "attempts", "transientFailures", "retryAt", "outputSummary", "outputFiles", "outputUntrusted",
       "failureReason", "liveRunId", "decisionPending", "decisionCount", "renderedInput", "usageTokens", "usageCost",
       "startedAt", "endedAt")
    = (x."title", x."assignee", x."input", x."waitFor", x."optionalWaitFor", x."quorum", x."budgetTokens", x."budgetCost",
       x."forEachFrom", x."forEachField", x."forEachMaxParallel", x."expansion", x."parentIndex", x."onFailure", x."maxRetries",
       x."status", x."attempts", x."transientFailures", x."retryAt", x."outputSummary", x."outputFiles", x."outputUntrusted",
       x."failureReason", x."liveRunId", x."decisionPending", x."decisionCount", x."renderedInput", x."usageTokens", x."usageCost",
       x."startedAt", x."endedAt")
    FROM jsonb_populate_recordset(NULL::"PlanStep", coalesce(doc->'steps', '[]')) x
    WHERE s."id" = x."id";

  INSERT INTO "StepEvent" ("planId", "stepIndex", "runId", "at", "phase", "message", "data")
    SELECT x."planId", x."stepIndex", x."runId", x."at", x."phase", x."message", x."data"
    FROM jsonb_populate_recordset(NULL::"StepEvent", coalesce(doc->'stepEvents', '[]')) x;

  IF event_count > 0 THEN
    UPDATE "Conversation" SET "lastSeq" = "lastSeq" + event_count, "updatedAt" = now_at
      WHERE "id" = doc->>'conversationId' RETURNING "lastSeq" INTO last_seq;
    IF last_seq IS NULL THEN
      RAISE EXCEPTION 'conversation % was not found while appending events', doc->>'conversationId';
    END IF;
    INSERT INTO "ConversationEvent" ("conversationId", "seq", "type", "payload", "createdAt")
      SELECT doc->>'conversationId', last_seq - event_count + e.ord::integer, e.value->>'type', e.value->'payload', now_at
      FROM jsonb_array_elements(doc->'events') WITH ORDINALITY AS e(value, ord);
  END IF;
  RETURN last_seq;
END
$$;`;

export const DATABASE_FUNCTIONS = [ENTER_CONVERSATION_FUNCTION, APPLY_WRITES_FUNCTION];
