-- AlterTable
ALTER TABLE "Message" ADD COLUMN     "notice" JSONB;

-- baton_write_units again, from the newest body (*_effort_escalation) but for the message
-- insert, which writes the message's notice (the server's own words as data, for the
-- reader's language: core/notices.ts). The document only gained an optional key: a
-- process of the previous version sends messages without it (NULL: no notice, the body
-- is shown), so the name stays.
CREATE OR REPLACE FUNCTION baton_write_units(doc jsonb)
RETURNS jsonb
LANGUAGE plpgsql VOLATILE
-- Every statement here reaches the rows it changes by key (see the comment above).
SET enable_seqscan = off SET enable_hashjoin = off SET enable_mergejoin = off
SET plan_cache_mode = force_generic_plan
AS $$
DECLARE
  event_count integer := coalesce(jsonb_array_length(doc->'events'), 0);
  now_at timestamp(3) := (doc->>'now')::timestamp(3);
  last_seq integer := NULL;
  expected jsonb := doc->'expect';
  claim jsonb := doc->'claim';
  touched text[] := '{}';
  claimed jsonb := '[]';
  waiting boolean := false;
BEGIN
  -- Optimistic use (one statement, no surrounding transaction): take the lock, then
  -- check that what the caller decided from is still true — each plan's version (null:
  -- the unit creates it, so it must not exist) and each run's status; if not, write nothing.
  IF expected IS NOT NULL AND jsonb_typeof(expected) = 'object' THEN
    PERFORM pg_advisory_xact_lock(hashtextextended(expected->>'lockKey', 0));
    IF EXISTS (SELECT 1 FROM jsonb_to_recordset(coalesce(expected->'plans', '[]')) AS x("planId" text, "version" integer)
               WHERE (SELECT p."version" FROM "Plan" p WHERE p."id" = x."planId") IS DISTINCT FROM x."version")
       OR EXISTS (SELECT 1 FROM jsonb_to_recordset(coalesce(expected->'runs', '[]')) AS x("runId" text, "runStatus" text)
               WHERE (SELECT r."status"::text FROM "Run" r WHERE r."id" = x."runId") IS DISTINCT FROM x."runStatus") THEN
      RAISE EXCEPTION 'the plan changed since it was read' USING ERRCODE = 'ZB409';
    END IF;
  END IF;
  -- Each table's statement runs only when the unit has rows for it: on PGlite (WebAssembly)
  -- even an empty statement costs about 0.1 ms, and most units write four or five tables.
  -- A new plan and its steps first: runs and steps refer to them.
  IF jsonb_array_length(coalesce(doc->'newPlans', '[]')) > 0 THEN
    IF NOT EXISTS (SELECT 1 FROM "Conversation" c WHERE c."id" = doc->>'conversationId') THEN
      RAISE EXCEPTION 'conversation % was not found', doc->>'conversationId' USING ERRCODE = 'ZB404';
    END IF;
    INSERT INTO "Plan" SELECT * FROM jsonb_populate_recordset(NULL::"Plan", doc->'newPlans');
  END IF;
  IF jsonb_array_length(coalesce(doc->'newSteps', '[]')) > 0 THEN
    INSERT INTO "PlanStep" SELECT * FROM jsonb_populate_recordset(NULL::"PlanStep", doc->'newSteps');
  END IF;
  IF jsonb_array_length(coalesce(doc->'messages', '[]')) > 0 THEN
    INSERT INTO "Message" ("id", "conversationId", "authorKind", "authorAgentId", "kind", "body", "notice", "mentions", "planId", "stepId", "runId", "formId", "createdAt")
      SELECT x."id", x."conversationId", x."authorKind", x."authorAgentId", x."kind", x."body", x."notice", x."mentions", x."planId", x."stepId", x."runId", x."formId", x."createdAt"
      FROM jsonb_populate_recordset(NULL::"Message", doc->'messages') x;
  END IF;

  -- a new run waits in the queue until a worker with room claims it (below, or baton_claim_runs)
  IF jsonb_array_length(coalesce(doc->'runs', '[]')) > 0 THEN
    WITH inserted AS (
      INSERT INTO "Run" ("id", "conversationId", "agentId", "planId", "stepId", "kind", "attempt", "status", "input", "model", "modelReason",
                         "triggerMessageId", "resumesRunId", "createdAt", "notBefore")
        SELECT x."id", x."conversationId", x."agentId", x."planId", x."stepId", x."kind", x."attempt", 'queued', x."input", x."model", coalesce(x."modelReason", 'agent'),
               x."triggerMessageId", x."resumesRunId", x."createdAt", x."notBefore"
        FROM jsonb_populate_recordset(NULL::"Run", doc->'runs') x
        RETURNING "agentId")
    SELECT touched || coalesce(array_agg("agentId") FILTER (WHERE "agentId" IS NOT NULL), '{}') INTO touched FROM inserted;
  END IF;

  -- never later than now: the slot is free from this statement on (a process's stamps may run ahead)
  IF jsonb_array_length(coalesce(doc->'finishedRuns', '[]')) > 0 THEN
    WITH ended AS (
      UPDATE "Run" r SET "status" = x."status", "endedAt" = LEAST(x."endedAt", (clock_timestamp() AT TIME ZONE 'UTC')::timestamp(3)), "error" = x."error",
          "tokensIn" = x."tokensIn", "tokensOut" = x."tokensOut", "cost" = x."cost",
          "cacheReadTokens" = coalesce(x."cacheReadTokens", 0), "cacheWriteTokens" = coalesce(x."cacheWriteTokens", 0),
          "usageEstimated" = coalesce(x."usageEstimated", false), "leaseExpiresAt" = NULL
        FROM jsonb_populate_recordset(NULL::"Run", doc->'finishedRuns') x
        WHERE r."id" = x."id" AND r."status" = 'running'
        RETURNING r."agentId")
    SELECT touched || coalesce(array_agg("agentId") FILTER (WHERE "agentId" IS NOT NULL), '{}') INTO touched FROM ended;
  END IF;

  IF jsonb_array_length(coalesce(doc->'cancelledRuns', '[]')) > 0 THEN
    WITH stopped AS (
      UPDATE "Run" r SET "status" = 'cancelled', "endedAt" = x."endedAt", "error" = 'cancelled'
        FROM jsonb_populate_recordset(NULL::"Run", doc->'cancelledRuns') x
        WHERE r."id" = x."id" AND r."status" IN ('queued', 'running')
        RETURNING r."agentId")
    SELECT touched || coalesce(array_agg("agentId") FILTER (WHERE "agentId" IS NOT NULL), '{}') INTO touched FROM stopped;
  END IF;

  IF jsonb_array_length(coalesce(doc->'runPlans', '[]')) > 0 THEN
    UPDATE "Run" r SET "planId" = x."planId"
      FROM jsonb_to_recordset(doc->'runPlans') AS x("id" text, "planId" text)
      WHERE r."id" = x."id";
  END IF;

  IF jsonb_array_length(coalesce(doc->'closedForms', '[]')) > 0 THEN
    UPDATE "Form" SET "status" = 'cancelled'
      WHERE "id" IN (SELECT jsonb_array_elements_text(doc->'closedForms')) AND "status" = 'open';
  END IF;

  IF jsonb_array_length(coalesce(doc->'plans', '[]')) > 0 THEN
    UPDATE "Plan" p SET "version" = x."version", "updatedAt" = x."updatedAt",
        "status" = CASE WHEN x."setStatus" THEN x."status"::"PlanStatus" ELSE p."status" END,
        "endedAt" = CASE WHEN x."setStatus" THEN x."endedAt" ELSE p."endedAt" END
      FROM jsonb_to_recordset(doc->'plans')
        AS x("id" text, "version" integer, "updatedAt" timestamp(3), "setStatus" boolean, "status" text, "endedAt" timestamp(3))
      WHERE p."id" = x."id";
  END IF;

  IF jsonb_array_length(coalesce(doc->'steps', '[]')) > 0 THEN
    UPDATE "PlanStep" s SET
        ("title", "assignee", "input", "waitFor", "optionalWaitFor", "quorum", "budgetTokens", "budgetCost",
         "forEachFrom", "forEachField", "forEachMaxParallel", "expansion", "parentIndex", "onFailure", "maxRetries",
         "status", "attempts", "transientFailures", "retryAt", "outputSummary", "outputFiles", "outputUntrusted",
         "failureReason", "liveRunId", "hedgeRunId", "hedgeModel", "effort", "escalatedAttempt", "escalationCause", "decisionPending", "decisionCount", "renderedInput", "usageTokens", "usageCost",
         "startedAt", "endedAt")
      = (x."title", x."assignee", x."input", x."waitFor", x."optionalWaitFor", x."quorum", x."budgetTokens", x."budgetCost",
         x."forEachFrom", x."forEachField", x."forEachMaxParallel", x."expansion", x."parentIndex", x."onFailure", x."maxRetries",
         x."status", x."attempts", x."transientFailures", x."retryAt", x."outputSummary", x."outputFiles", x."outputUntrusted",
         x."failureReason", x."liveRunId", x."hedgeRunId", x."hedgeModel", x."effort", x."escalatedAttempt", x."escalationCause", x."decisionPending", x."decisionCount", x."renderedInput", x."usageTokens", x."usageCost",
         x."startedAt", x."endedAt")
      FROM jsonb_populate_recordset(NULL::"PlanStep", doc->'steps') x
      WHERE s."id" = x."id";
  END IF;

  IF jsonb_array_length(coalesce(doc->'stepEvents', '[]')) > 0 THEN
    INSERT INTO "StepEvent" ("planId", "stepIndex", "runId", "at", "phase", "message", "data")
      SELECT x."planId", x."stepIndex", x."runId", x."at", x."phase", x."message", x."data"
      FROM jsonb_populate_recordset(NULL::"StepEvent", doc->'stepEvents') x;
  END IF;

  -- Pools this unit queued runs in or freed slots of (collected from the writes above,
  -- no extra read): hand their slots to the oldest queued runs now, in this statement
  -- (the hot path costs no extra round trip).
  IF cardinality(touched) > 0 THEN
    SELECT array_agg(DISTINCT a) INTO touched FROM unnest(touched) a;
    IF claim IS NOT NULL AND jsonb_typeof(claim) = 'object' THEN
      SELECT coalesce(jsonb_agg(to_jsonb(c)), '[]') INTO claimed FROM baton_claim_runs(
        claim->>'owner', (claim->>'leaseMs')::integer, (claim->>'max')::integer, claim->'modelLimits', touched) c;
    END IF;
    -- runs still queued in those pools: tell the other processes (delivered at commit)
    waiting := EXISTS (SELECT 1 FROM "Run" r WHERE r."status" = 'queued' AND r."agentId" = ANY(touched)
      AND (r."notBefore" IS NULL OR r."notBefore" <= (clock_timestamp() AT TIME ZONE 'UTC')));
    IF waiting THEN PERFORM pg_notify('baton_runs', ''); END IF;
  END IF;

  IF event_count > 0 THEN
    UPDATE "Conversation" SET "lastSeq" = "lastSeq" + event_count, "updatedAt" = now_at
      WHERE "id" = doc->>'conversationId' RETURNING "lastSeq" INTO last_seq;
    IF last_seq IS NULL THEN
      RAISE EXCEPTION 'conversation % was not found while appending events', doc->>'conversationId';
    END IF;
    IF jsonb_array_length(claimed) = 0 THEN
      INSERT INTO "ConversationEvent" ("conversationId", "seq", "type", "payload", "createdAt")
        SELECT doc->>'conversationId', last_seq - event_count + e.ord::integer, e.value->>'type', e.value->'payload', now_at
        FROM jsonb_array_elements(doc->'events') WITH ORDINALITY AS e(value, ord);
    ELSE
      -- a run created queued and claimed above is announced as running, as it now is
      INSERT INTO "ConversationEvent" ("conversationId", "seq", "type", "payload", "createdAt")
        SELECT doc->>'conversationId', last_seq - event_count + e.ord::integer, e.value->>'type',
          coalesce((SELECT jsonb_set(jsonb_set(e.value->'payload', '{run,status}', '"running"'), '{run,startedAt}', c->'startedAt')
                    FROM jsonb_array_elements(claimed) c
                    WHERE e.value->>'type' = 'run-updated' AND e.value->'payload'->'run'->>'status' = 'queued'
                      AND c->>'id' = e.value->'payload'->'run'->>'id'), e.value->'payload'),
          now_at
        FROM jsonb_array_elements(doc->'events') WITH ORDINALITY AS e(value, ord);
    END IF;
    -- the other processes hear of these events at commit, in commit order, with no round
    -- trip more (EventPublisher.commitNotice): the text around the seqs is the caller's
    IF jsonb_typeof(doc->'notice') = 'object' THEN
      PERFORM pg_notify(doc->'notice'->>'channel', (doc->'notice'->>'before')
        || jsonb_build_object('conversationId', doc->>'conversationId', 'first', last_seq - event_count + 1, 'last', last_seq)::text
        || (doc->'notice'->>'after'));
    END IF;
  END IF;
  RETURN jsonb_build_object('lastSeq', last_seq, 'claimed', claimed, 'waiting', waiting);
END
$$;
