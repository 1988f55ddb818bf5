/** How runs end, through both wire formats: a run that answers only by calling finish still says something. */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startFakeModelServer, type FakeModelServer } from "./fake-model-server.ts";
import { agentProfile, recordingSink, runRequest, testRuntime } from "./test-support.ts";

(globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;

describe.each([
  ["openai", "openai:gpt-test", "OPENAI_API_KEY"],
  ["anthropic", "anthropic:claude-test", "ANTHROPIC_API_KEY"],
] as const)("run endings through the %s wire format", (format, model, keyVariable) => {
  let server: FakeModelServer;
  beforeAll(async () => {
    server = await startFakeModelServer();
  });
  afterAll(() => server.close());
  beforeEach(() => server.reset());

  it("a mention answered only by a finish call posts the finish summary as its message", async () => {
    const { runner } = testRuntime({
      env: { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: server.baseURL, ANTHROPIC_API_KEY: "ak-test", ANTHROPIC_BASE_URL: server.baseURL },
    });
    server.script({ kind: "tools", calls: [{ id: "call_1", name: "finish", args: JSON.stringify({ summary: "Staging is heron-7.", files: [] }) }] });
    const result = await runner.run(runRequest({ agent: agentProfile({ model }), input: "@researcher which database?" }), recordingSink());
    expect(result).toMatchObject({ kind: "ok", text: "Staging is heron-7.", summary: "Staging is heron-7." });
  });

  it("a refused key fails the run with the provider, the status and the variable to fix", async () => {
    const { runner } = testRuntime({
      env: { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: server.baseURL, ANTHROPIC_API_KEY: "ak-test", ANTHROPIC_BASE_URL: server.baseURL },
    });
    server.script({ kind: "error", status: 401, message: "invalid x-api-key", errorType: "authentication_error" });
    const result = await runner.run(runRequest({ agent: agentProfile({ model }), input: "hello" }), recordingSink());
    expect(result).toMatchObject({ kind: "failed", transient: false, reason: `${format} (HTTP 401): invalid x-api-key — check ${keyVariable}` });
  });
});
