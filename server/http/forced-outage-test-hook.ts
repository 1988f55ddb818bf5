/**
 * TEST HOOK, off in production: lets a browser test see what a page shows while the
 * database is unreachable, on the embedded database that cannot be stopped under a running
 * server. Only when the server was started with BATON_TEST_HOOK_FORCED_OUTAGE=1 (the
 * Playwright config does; nothing else sets it) does a request carrying the cookie
 * FORCED_OUTAGE_COOKIE=1 fail its reads as a refused connection would.
 */
export const FORCED_OUTAGE_COOKIE = "baton-test-hook-forced-outage";

export function outageForcedForTests(cookie: string | undefined, env: Record<string, string | undefined> = process.env): boolean {
  return env.BATON_TEST_HOOK_FORCED_OUTAGE === "1" && cookie === "1";
}

/** the error a read gets when the database refuses the connection (isDatabaseUnreachable knows it) */
export function forcedOutageError(): Error {
  return Object.assign(new Error("connect ECONNREFUSED (forced by the outage test hook)"), { code: "ECONNREFUSED" });
}
