/**
 * The per-file setup of executor integration tests: one fixture created before the
 * file's tests and closed after them, and the terse step builder their plans use.
 */
import { afterAll, beforeAll } from "vitest";
import { createExecutorFixture, type ExecutorFixture } from "./executor-fixture.ts";

/**
 * Registers beforeAll/afterAll for one executor fixture and returns it. The returned
 * object forwards to the fixture once beforeAll created it (use it inside tests and
 * later hooks only); before that, any use is an error that says so.
 */
export function executorFixtureForFile(options: Parameters<typeof createExecutorFixture>[0] = {}): ExecutorFixture {
  let current: ExecutorFixture | undefined;
  beforeAll(async () => {
    current = await createExecutorFixture(options);
  });
  afterAll(async () => {
    await current?.close();
  });
  return new Proxy({} as ExecutorFixture, {
    get(_target, key) {
      if (!current) throw new Error(`the executor fixture was used (.${String(key)}) before beforeAll created it`);
      return Reflect.get(current, key, current) as unknown;
    },
  });
}

/** A raw plan step as the API takes it: `Step N`, an assignee, an input, and any extra fields. */
export const rawStep = (index: number, assignee: string, input: string, extra: Record<string, unknown> = {}) => ({
  index,
  title: `Step ${index}`,
  assignee,
  input,
  ...extra,
});
