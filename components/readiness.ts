/**
 * Asks the server's readiness endpoint (server/ops/health.ts) whether it can reach its
 * database: a page that failed to render gets only an error's digest in the browser, and
 * this is how its error page learns that the cause was an outage. It names check states
 * only and needs no session.
 */
const READINESS_PATH = "/readyz";

/** Whether a readiness answer says the database is unreachable; anything else is "don't know". */
export function saysDatabaseUnreachable(report: unknown): boolean {
  const checks = (report as { checks?: { database?: unknown } } | null)?.checks;
  return typeof checks === "object" && checks !== null && checks.database === "unreachable";
}

/** true when the server says it cannot reach its database; false when it can, or did not answer */
export async function fetchDatabaseUnreachable(fetcher: typeof fetch = fetch): Promise<boolean> {
  try {
    const response = await fetcher(READINESS_PATH, { cache: "no-store" });
    return saysDatabaseUnreachable(await response.json());
  } catch {
    return false;
  }
}
