/**
 * SQL functions Baton's hot path calls. They are (re)created each time a database is
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
  PERFORM pg_advisory_xact_lock(hashtextextended(lock_key, 0));
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

export const DATABASE_FUNCTIONS = [ENTER_CONVERSATION_FUNCTION];
