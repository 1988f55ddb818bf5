/**
 * Error bodies stay small however much is wrong with the input: the first 50 issues
 * and a count of the rest, for zod-checked bodies and for rejected plans alike.
 */
import { afterEach, beforeEach, describe, expect, it, vi, type MockInstance } from "vitest";
import { z } from "zod";
import { MAX_REPORTED_ISSUES, PlanValidationError } from "../core/errors.ts";
import { validatePlan } from "../core/validate-plan.ts";
import { apiErrorSchema } from "../protocol/rest/errors.ts";
import { BatonError } from "../protocol/errors.ts";
import { Prisma } from "../generated/prisma/client.ts";
import { log } from "../observability/log.ts";
import { DATABASE_UNREACHABLE_MESSAGE, errorResponse, invalidInput } from "./errors.ts";

// what errorResponse logs is checked where it matters; the test's output stays quiet
let warned: MockInstance;
let logged: MockInstance;
beforeEach(() => {
  warned = vi.spyOn(log, "warn").mockImplementation(() => undefined);
  logged = vi.spyOn(log, "error").mockImplementation(() => undefined);
});
afterEach(() => vi.restoreAllMocks());

async function bodyOf(response: Response) {
  const text = await response.text();
  return { size: text.length, body: apiErrorSchema.parse(JSON.parse(text)).error };
}

describe("bounded error bodies", () => {
  it("a body with 10,000 bad entries answers 400 with 50 issues and the count of the rest", async () => {
    const parsed = z.array(z.string()).safeParse(Array.from({ length: 10_000 }, (_, i) => i));
    if (parsed.success) throw new Error("expected a failure");
    const response = errorResponse(invalidInput(parsed.error));
    expect(response.status).toBe(400);
    const { size, body } = await bodyOf(response);
    expect(body.code).toBe("invalid_input");
    expect(body.details).toHaveLength(MAX_REPORTED_ISSUES);
    expect(body.omittedIssues).toBe(10_000 - MAX_REPORTED_ISSUES);
    expect(body.message).toMatch(/^0: .*… and 9950 more$/);
    expect(size).toBeLessThan(10_000);
  });

  it("a few bad entries are all listed, with no count", async () => {
    const parsed = z.object({ a: z.string(), b: z.number() }).safeParse({});
    if (parsed.success) throw new Error("expected a failure");
    const { body } = await bodyOf(errorResponse(invalidInput(parsed.error)));
    expect(body.details).toEqual([
      { path: "a", message: expect.any(String) },
      { path: "b", message: expect.any(String) },
    ]);
    expect(body.omittedIssues).toBeUndefined();
  });

  it("a 998 KB plan of one repeated wait_for entry gets a small 422", async () => {
    const steps = [
      { index: 1, title: "a", assignee: "user", input: "x" },
      { index: 2, title: "b", assignee: "user", input: "y", wait_for: Array.from({ length: 499_000 }, () => 1) },
    ];
    let rejection: unknown;
    try {
      validatePlan({
        raw: { title: "flood", steps },
        assignees: new Set(),
        limits: { maxSteps: 200, maxInputChars: 20_000, defaultMaxParallel: 4, defaultMaxRetries: 3 },
      });
    } catch (error) {
      rejection = error;
    }
    expect(rejection).toBeInstanceOf(PlanValidationError);
    const response = errorResponse(rejection);
    expect(response.status).toBe(422);
    const { size, body } = await bodyOf(response);
    expect(body.issues).toEqual([{ stepIndex: 2, field: "wait_for", message: expect.stringContaining("499000 entries") }]);
    expect(size).toBeLessThan(1_000);
  });

  it("a coded error carrying more than 50 issues is cut to 50 and counted", async () => {
    const issues = Array.from({ length: 70 }, (_, i) => ({ stepIndex: i + 1, field: "title", message: "bad" }));
    const { body } = await bodyOf(errorResponse(new PlanValidationError(issues)));
    expect(body.issues).toHaveLength(MAX_REPORTED_ISSUES);
    expect(body.omittedIssues).toBe(20);
    expect(body.message).toContain("(70 issues)");
  });
});

describe("one mapping from codes to statuses", () => {
  it("answers a BatonError with its code's status and message", async () => {
    const response = errorResponse(new BatonError("form_closed", "this form has already been answered"));
    expect(response.status).toBe(409);
    expect((await bodyOf(response)).body).toEqual({ code: "form_closed", message: "this form has already been answered" });
  });

  it("answers 500, without the message, for an error that only claims a code in a plain object", async () => {
    const response = errorResponse({ code: "not_found", message: "secret detail" });
    expect(response.status).toBe(500);
    expect((await bodyOf(response)).body.message).not.toContain("secret");
  });
});

describe("a database that cannot be reached", () => {
  // as the server met them with its PostgreSQL stopped or its connections terminated
  const unreachable = new Prisma.PrismaClientKnownRequestError("Can't reach database server at 127.0.0.1:5433", {
    code: "P1001",
    clientVersion: "7.10.0",
  });
  const terminated = Object.assign(new Error("terminating connection due to administrator command"), { severity: "FATAL", code: "57P01" });
  const refused = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5433"), { code: "ECONNREFUSED" });

  it.each([
    ["unreachable (P1001)", unreachable],
    ["wrapped by better-auth's session lookup", new Error("Failed to get session", { cause: unreachable })],
    ["a terminated connection (57P01)", terminated],
    ["a refused connection", refused],
  ])("%s: 503 'unavailable' with Retry-After, saying nothing was saved", async (_name, error) => {
    const response = errorResponse(error);
    expect(response.status).toBe(503);
    expect(response.headers.get("retry-after")).toBe("5");
    const { body } = await bodyOf(response);
    expect(body).toEqual({ code: "unavailable", message: DATABASE_UNREACHABLE_MESSAGE });
    expect(body.message).toMatch(/nothing was saved/);
    // an outage is one warning, never an error with a stack
    expect(warned).toHaveBeenCalledTimes(1);
    expect(logged).not.toHaveBeenCalled();
  });

  it("a statement the database refused is still a 500, not an outage", () => {
    const refusedWrite = Object.assign(new Error("invalid byte sequence"), { severity: "ERROR", code: "22021" });
    expect(errorResponse(refusedWrite).status).toBe(500);
    expect(logged).toHaveBeenCalledTimes(1);
  });
});
