-- The hot path's SQL functions (one round trip each), shipped as a migration like every
-- other object of the schema. Prisma's schema does not describe functions, so diffs never
-- touch them; their column lists are checked against the schema and against the row types
-- of server/adapters/prisma/tables.ts by server/db/function-columns.int.test.ts.
-- A change to a function is a new migration that replaces it; a change to its signature
-- or its document gets a new name, so a process of the previous version keeps its own.
-- All three keep one generic plan per statement (plan_cache_mode): PL/pgSQL otherwise
-- re-plans a statement on every call whenever the plan for its values looks cheaper
-- (the claim's count of an agent's running runs was planned on each of 244 calls of 240).

-- baton_enter_unit: takes a conversation's lock and reads what a reconcile needs, in one
-- round trip. A VOLATILE plpgsql function runs each statement with a fresh snapshot, so
-- the read sees everything committed before the lock was granted (a plain SELECT that
-- locks in its target list would read from a snapshot taken before it waited).
CREATE OR REPLACE FUNCTION baton_enter_unit(lock_key text, plan_id text, run_id text)
RETURNS TABLE ("version" integer, "runStatus" text)
LANGUAGE plpgsql VOLATILE SET plan_cache_mode = force_generic_plan AS $$
BEGIN
  -- without a key it is only the read (the optimistic path locks when it writes)
  IF lock_key IS NOT NULL THEN
    PERFORM pg_advisory_xact_lock(hashtextextended(lock_key, 0));
  END IF;
  RETURN QUERY SELECT
    (SELECT p."version" FROM "Plan" p WHERE p."id" = plan_id),
    (SELECT r."status"::text FROM "Run" r WHERE r."id" = run_id);
END
$$;

-- baton_claim_runs: the counting semaphore of the agent and model pools, and the run
-- queue. Claims, for `owner`, up to `max_claims` queued runs — oldest first across every
-- conversation — whose agent pool (Agent.concurrency) and model pool (`model_limits`) have
-- room, counting runs that are running. Exact across processes: every pool involved is
-- locked (advisory, sorted, so claimers never deadlock) before counting, and held to
-- commit; a run becomes `running` only here. Rows another transaction is changing are
-- skipped, not waited for. `only_agents` narrows the claim to those agents' pools.
-- Returns the claimed runs with their conversation and start time, oldest first.
CREATE OR REPLACE FUNCTION baton_claim_runs(owner text, lease_ms integer, max_claims integer, model_limits jsonb, only_agents text[])
RETURNS TABLE ("id" text, "conversationId" text, "startedAt" text)
LANGUAGE plpgsql VOLATILE SET plan_cache_mode = force_generic_plan AS $$
#variable_conflict use_column
DECLARE
  pool text;
  candidate record;
  claimed integer := 0;
  at_time timestamp(3);
  limits jsonb := coalesce(model_limits, '{}');
  agent_room jsonb;
  model_room jsonb;
  locked_agents text[];
  locked_models text[];
BEGIN
  IF owner IS NULL OR max_claims IS NULL OR max_claims <= 0 THEN RETURN; END IF;
  -- the pools to lock: those with queued runs now. Only these are counted and claimed
  -- from below: a run queued after this read belongs to a pool this call does not hold.
  -- a retry in backoff (notBefore ahead) is not claimable yet: its pool is left alone
  SELECT array_agg(DISTINCT q."agentId") INTO locked_agents FROM "Run" q
    WHERE q."status" = 'queued' AND q."agentId" IS NOT NULL AND (only_agents IS NULL OR q."agentId" = ANY(only_agents))
      AND (q."notBefore" IS NULL OR q."notBefore" <= (clock_timestamp() AT TIME ZONE 'UTC'));
  IF locked_agents IS NULL THEN RETURN; END IF;
  -- model pools exist only where BATON_MODEL_CONCURRENCY limits a model (not by default)
  IF limits = '{}'::jsonb THEN
    locked_models := '{}';
  ELSE
    SELECT coalesce(array_agg(DISTINCT q."model"), '{}') INTO locked_models FROM "Run" q
      WHERE q."status" = 'queued' AND limits ? q."model" AND q."agentId" = ANY(locked_agents);
  END IF;
  FOR pool IN
    SELECT k FROM (
      SELECT 'agent:' || a AS k FROM unnest(locked_agents) a
      UNION
      SELECT 'model:' || m FROM unnest(locked_models) m
    ) pools ORDER BY k
  LOOP
    PERFORM pg_advisory_xact_lock(hashtextextended('baton:pool:' || pool, 0));
  END LOOP;
  -- after the locks: every claim committed before is counted, none is in flight
  SELECT coalesce(jsonb_object_agg(a."id", a."concurrency" -
      (SELECT count(*) FROM "Run" r WHERE r."agentId" = a."id" AND r."status" = 'running')), '{}')
    INTO agent_room FROM "Agent" a WHERE a."id" = ANY(locked_agents);
  IF cardinality(locked_models) = 0 THEN
    model_room := '{}';
  ELSE
    SELECT coalesce(jsonb_object_agg(m, (limits->>m)::integer -
        (SELECT count(*) FROM "Run" r WHERE r."model" = m AND r."status" = 'running')), '{}')
      INTO model_room FROM unnest(locked_models) m;
  END IF;
  at_time := (clock_timestamp() AT TIME ZONE 'UTC')::timestamp(3);
  FOR candidate IN
    SELECT q."id", q."conversationId", q."agentId", q."model" FROM "Run" q
    WHERE q."status" = 'queued' AND q."agentId" = ANY(locked_agents)
      AND (q."notBefore" IS NULL OR q."notBefore" <= at_time)
      AND coalesce((agent_room->>q."agentId")::integer, 0) > 0
      AND (NOT limits ? q."model" OR coalesce((model_room->>q."model")::integer, 0) > 0)
    ORDER BY q."createdAt", q."id"
    LIMIT 200
    FOR UPDATE OF q SKIP LOCKED
  LOOP
    EXIT WHEN claimed >= max_claims;
    CONTINUE WHEN (agent_room->>candidate."agentId")::integer <= 0;
    CONTINUE WHEN limits ? candidate."model" AND coalesce((model_room->>candidate."model")::integer, 0) <= 0;
    UPDATE "Run" r SET "status" = 'running', "leaseOwner" = owner, "startedAt" = at_time,
        "leaseExpiresAt" = at_time + make_interval(secs => lease_ms / 1000.0)
      WHERE r."id" = candidate."id";
    agent_room := jsonb_set(agent_room, ARRAY[candidate."agentId"], to_jsonb((agent_room->>candidate."agentId")::integer - 1));
    IF limits ? candidate."model" THEN
      model_room := jsonb_set(model_room, ARRAY[candidate."model"], to_jsonb((model_room->>candidate."model")::integer - 1));
    END IF;
    claimed := claimed + 1;
    "id" := candidate."id";
    "conversationId" := candidate."conversationId";
    "startedAt" := to_char(at_time, 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"');
    RETURN NEXT;
  END LOOP;
END
$$;

-- baton_write_units: applies one unit of work's batched writes
-- (server/adapters/prisma/write-batch.ts) from a single JSON document, table by table;
-- with `claim`, claims queued runs of the pools the unit touched for the calling worker
-- (baton_claim_runs); then appends the conversation's events with gap-free seq (the row
-- lock on Conversation orders concurrent writers). Returns { lastSeq, claimed, waiting }.
-- Statements run in order, each seeing the ones before it. With `expect`, it is the whole
-- optimistic unit on its own: lock, verify, write — so a run is never claimed from a
-- decision the database refused. The expectation lists every plan's version and every
-- run's status the unit decided from (several runs' results may share one unit:
-- executor/units.ts, "batches"). A new plan's rows (`newPlans`, `newSteps`) are inserted
-- first, so submitting a plan is one statement too. With `notice`, it NOTIFYs the events'
-- seqs for the other processes, delivered at commit (EventPublisher.commitNotice).
-- It raises SQLSTATE ZB409 when the expectation failed and ZB404 when a new plan's
-- conversation does not exist (server/db/database-errors.ts reads them).
-- (It replaced `baton_write_unit`, whose expectation named one plan and one run, which
-- replaced `baton_apply_unit`, which could not insert plans.)
--
-- The planner may not read a table whole or hash-join it here (the SET clause). Each
-- statement touches a few rows, found by primary key from the document's JSON rows; but
-- the planner takes any set-returning function for 100 rows, and 100 index probes looked
-- dearer than reading a table of up to a few thousand pages. PGlite never gathers
-- statistics, and autovacuum may be off, so nothing corrected it. With the settings the
-- index plan is the one cached from the first call on, at any size
-- (keyed-writes.int.test.ts; docs/decisions/2026-12-01-server-latency.md, "Eighth round").
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
    INSERT INTO "Message" ("id", "conversationId", "authorKind", "authorAgentId", "kind", "body", "mentions", "planId", "stepId", "runId", "formId", "createdAt")
      SELECT x."id", x."conversationId", x."authorKind", x."authorAgentId", x."kind", x."body", x."mentions", x."planId", x."stepId", x."runId", x."formId", x."createdAt"
      FROM jsonb_populate_recordset(NULL::"Message", doc->'messages') x;
  END IF;

  -- a new run waits in the queue until a worker with room claims it (below, or baton_claim_runs)
  IF jsonb_array_length(coalesce(doc->'runs', '[]')) > 0 THEN
    WITH inserted AS (
      INSERT INTO "Run" ("id", "conversationId", "agentId", "planId", "stepId", "kind", "attempt", "status", "input", "model",
                         "triggerMessageId", "resumesRunId", "createdAt", "notBefore")
        SELECT x."id", x."conversationId", x."agentId", x."planId", x."stepId", x."kind", x."attempt", 'queued', x."input", x."model",
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
         "failureReason", "liveRunId", "decisionPending", "decisionCount", "renderedInput", "usageTokens", "usageCost",
         "startedAt", "endedAt")
      = (x."title", x."assignee", x."input", x."waitFor", x."optionalWaitFor", x."quorum", x."budgetTokens", x."budgetCost",
         x."forEachFrom", x."forEachField", x."forEachMaxParallel", x."expansion", x."parentIndex", x."onFailure", x."maxRetries",
         x."status", x."attempts", x."transientFailures", x."retryAt", x."outputSummary", x."outputFiles", x."outputUntrusted",
         x."failureReason", x."liveRunId", x."decisionPending", x."decisionCount", x."renderedInput", x."usageTokens", x."usageCost",
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
