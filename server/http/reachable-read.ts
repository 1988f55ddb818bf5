/**
 * For pages and layouts: a server component's error reaches the browser only as a digest
 * in production, so an outage there would show a bare "something went wrong". Reads wrapped
 * here tell the page that the database is unreachable, and the page says so itself.
 */
import { isDatabaseUnreachable } from "../db/database-errors.ts";

export type ReachableRead<T> = { reachable: true; value: T } | { reachable: false };

/**
 * Runs `read`; a database that cannot be reached comes back as `{ reachable: false }`.
 * Any other error (Next's redirect and notFound among them) is thrown on unchanged.
 */
export async function readIfReachable<T>(read: () => Promise<T>): Promise<ReachableRead<T>> {
  try {
    return { reachable: true, value: await read() };
  } catch (error) {
    if (isDatabaseUnreachable(error)) return { reachable: false };
    throw error;
  }
}
