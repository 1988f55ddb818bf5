import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "./config.ts";

describe("loadConfig", () => {
  it("has defaults that need nothing: embedded database, offline model", () => {
    const config = loadConfig({});
    expect(config.port).toBe(3000);
    expect(config.databaseUrl).toBeUndefined();
    expect(config.defaultModel).toBe("offline");
    expect(config.planLimits.defaultMaxParallel).toBe(4);
  });

  it("runs every role in one process by default; web and worker need a shared PostgreSQL", () => {
    expect(loadConfig({})).toMatchObject({ role: "all", workerSlots: 64, sweepMs: 2_000 });
    const url = "postgresql://u@127.0.0.1/baton";
    expect(loadConfig({ BATON_ROLE: "worker", DATABASE_URL: url, BATON_WORKER_SLOTS: "8" })).toMatchObject({
      role: "worker",
      workerSlots: 8,
    });
    expect(loadConfig({ BATON_ROLE: "web", DATABASE_URL: url }).role).toBe("web");
    expect(() => loadConfig({ BATON_ROLE: "worker" })).toThrow(/BATON_ROLE.*DATABASE_URL/);
    expect(() => loadConfig({ BATON_ROLE: "everything", DATABASE_URL: url })).toThrow(/BATON_ROLE/);
    expect(() => loadConfig({ BATON_SWEEP_MS: "5" })).toThrow(/BATON_SWEEP_MS/);
  });

  it("names every bad variable without echoing its value", () => {
    let error: unknown;
    try {
      loadConfig({ PORT: "eighty", DATABASE_URL: "mysql://user:secret@db/x", BATON_API_TOKEN: "short" });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as Error).message;
    expect(message).toContain("PORT");
    expect(message).toContain("DATABASE_URL");
    expect(message).toContain("BATON_API_TOKEN");
    expect(message).not.toContain("secret");
  });

  it("parses per-model pools and rejects a malformed one by name", () => {
    expect(loadConfig({ BATON_MODEL_CONCURRENCY: "offline=64, anthropic:claude-sonnet-4-5=4" }).modelConcurrency).toEqual({
      offline: 64,
      "anthropic:claude-sonnet-4-5": 4,
    });
    expect(() => loadConfig({ BATON_MODEL_CONCURRENCY: "offline=lots" })).toThrow(/BATON_MODEL_CONCURRENCY/);
  });

  it("picks the demo agents' model from the keys present unless one is named", () => {
    expect(loadConfig({ ANTHROPIC_API_KEY: "k" }).defaultModel).toMatch(/^anthropic:/);
    expect(loadConfig({ OPENAI_API_KEY: "k" }).defaultModel).toMatch(/^openai:/);
    expect(loadConfig({ OPENAI_API_KEY: "k", BATON_DEFAULT_MODEL: "local:llama3.1" }).defaultModel).toBe("local:llama3.1");
  });

  it("caps request bodies at 1 MB unless BATON_MAX_BODY_BYTES says otherwise, and names a bad value", () => {
    expect(loadConfig({}).maxBodyBytes).toBe(1024 * 1024);
    expect(loadConfig({ BATON_MAX_BODY_BYTES: "262144" }).maxBodyBytes).toBe(262144);
    expect(() => loadConfig({ BATON_MAX_BODY_BYTES: "lots" })).toThrow(/BATON_MAX_BODY_BYTES/);
    expect(() => loadConfig({ BATON_MAX_BODY_BYTES: "10" })).toThrow(/BATON_MAX_BODY_BYTES/);
  });

  it("runs the embedded database on its own thread unless BATON_PGLITE_THREAD=0, and refuses another value", () => {
    expect(loadConfig({}).pgliteThread).toBe(true);
    expect(loadConfig({ BATON_PGLITE_THREAD: "0" }).pgliteThread).toBe(false);
    expect(() => loadConfig({ BATON_PGLITE_THREAD: "yes" })).toThrow(/BATON_PGLITE_THREAD/);
  });

  it("reads BATON_TRUST_PROXY as a number of proxies", () => {
    expect(loadConfig({}).trustProxy).toBe(0);
    expect(loadConfig({ BATON_TRUST_PROXY: "true" }).trustProxy).toBe(1);
    expect(loadConfig({ BATON_TRUST_PROXY: "2" }).trustProxy).toBe(2);
    expect(loadConfig({ BATON_TRUST_PROXY: "false" }).trustProxy).toBe(0);
    expect(() => loadConfig({ BATON_TRUST_PROXY: "yes please" })).toThrow(/BATON_TRUST_PROXY/);
  });
});
