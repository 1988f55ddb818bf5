import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startFakeModelServer, type FakeModelServer } from "./testing/fake-model-server.ts";
import { createModelRegistry } from "./model-registry.ts";
import { modelProblem, tryModel } from "./model-check.ts";

describe("checking a model id before it is saved", () => {
  const models = createModelRegistry({ env: { OPENAI_API_KEY: "sk-test" } });
  it("names a bad id, and a provider whose key this server lacks", () => {
    expect(modelProblem(models, "gpt4")).toMatch(/Unknown model id "gpt4": use anthropic:<model>, openai:<model>/);
    expect(modelProblem(models, "anthropic:claude-sonnet-4-5")).toMatch(/needs ANTHROPIC_API_KEY/);
    expect(modelProblem(models, "openai:")).toMatch(/no model name/);
    expect(modelProblem(models, "openai:gpt-4.1-mini")).toBeNull();
    expect(modelProblem(models, "offline")).toBeNull();
  });
});

describe("trying a model with one small call", () => {
  let server: FakeModelServer;
  beforeAll(async () => {
    server = await startFakeModelServer();
  });
  afterAll(() => server.close());
  beforeEach(() => server.reset());

  const models = () => createModelRegistry({ env: { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: server.baseURL } });

  it("reports the reply and how long it took", async () => {
    server.script({ kind: "text", text: "ok" });
    const trial = await tryModel({ models: models(), modelId: "openai:gpt-test" });
    expect(trial).toMatchObject({ ok: true, reply: "ok" });
    expect(server.requests).toHaveLength(1);
  });

  it("reports the provider's refusal, once (no retries)", async () => {
    server.script({ kind: "error", status: 401, message: "Incorrect API key provided", errorType: "invalid_request_error" });
    const trial = await tryModel({ models: models(), modelId: "openai:gpt-test" });
    expect(trial.ok).toBe(false);
    expect(!trial.ok && trial.error).toMatch(/^openai:gpt-test: .*Incorrect API key provided/);
    expect(server.requests).toHaveLength(1);
  });

  it("does not call anything for an id it cannot resolve", async () => {
    expect(await tryModel({ models: models(), modelId: "anthropic:claude-x" })).toEqual({
      ok: false,
      error: expect.stringMatching(/needs ANTHROPIC_API_KEY/),
    });
    expect(server.requests).toHaveLength(0);
  });
});
