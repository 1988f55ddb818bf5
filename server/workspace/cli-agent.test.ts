import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { cliAgentName, cliEnvironment, parseCliAgents, readCliAgents } from "./cli-agent.ts";

describe("CLI agent configuration", () => {
  it("reads agents with defaults", () => {
    expect(parseCliAgents('{"aider": {"command": ["aider", "--yes", "--message", "{input}"]}}')).toEqual({
      aider: {
        command: ["aider", "--yes", "--message", "{input}"],
        timeoutMs: 600_000,
        env: {},
        passEnv: [],
        readOnlyPaths: [],
        allowedHosts: [],
      },
    });
    expect(readCliAgents({})).toEqual({});
  });

  it("names the bad key", () => {
    expect(() => parseCliAgents('{"aider": {"command": []}}')).toThrow(/^BATON_CLI_AGENTS\.aider\.command: needs at least the program$/);
    expect(() => parseCliAgents('{"aider": {"command": ["aider"], "timeoutMs": "soon"}}')).toThrow(/^BATON_CLI_AGENTS\.aider\.timeoutMs: /);
    expect(() => parseCliAgents('{"aider": {"command": ["aider"], "shell": true}}')).toThrow(/^BATON_CLI_AGENTS\.aider: .*shell/);
    expect(() => parseCliAgents('{"aider": {"command": ["aider"], "passEnv": ["A-B"]}}')).toThrow(
      /^BATON_CLI_AGENTS\.aider\.passEnv\.0: is not a variable name$/,
    );
    expect(() => parseCliAgents('{"aider": {"command": ["aider"], "allowedHosts": ["https://api.example.com"]}}')).toThrow(
      /^BATON_CLI_AGENTS\.aider\.allowedHosts\.0: is not a host name/,
    );
    expect(parseCliAgents('{"a": {"command": ["a"], "allowedHosts": ["api.example.com", "*.example.org"]}}').a.allowedHosts).toEqual([
      "api.example.com",
      "*.example.org",
    ]);
    expect(() => parseCliAgents('{"bad name": {"command": ["x"]}}')).toThrow(/^BATON_CLI_AGENTS\.bad name: a name is/);
    expect(() => parseCliAgents("[1]")).toThrow(/^BATON_CLI_AGENTS: expected an object/);
    expect(() => parseCliAgents("{oops")).toThrow(/^BATON_CLI_AGENTS: not valid JSON/);
  });

  it("reads a configuration file, or refuses both sources at once", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "baton-cli-config-"));
    try {
      const file = path.join(dir, "cli-agents.json");
      await writeFile(file, JSON.stringify({ codex: { command: ["codex", "exec"], timeoutMs: 5_000 } }));
      expect(readCliAgents({ BATON_CLI_AGENTS_FILE: file }).codex.timeoutMs).toBe(5_000);
      expect(() => readCliAgents({ BATON_CLI_AGENTS_FILE: file, BATON_CLI_AGENTS: "{}" })).toThrow(/not both/);
      expect(() => readCliAgents({ BATON_CLI_AGENTS_FILE: path.join(dir, "missing.json") })).toThrow(/^BATON_CLI_AGENTS_FILE: cannot read/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("knows cli: model ids", () => {
    expect(cliAgentName("cli:aider")).toBe("aider");
    expect(cliAgentName("openai:gpt-4o")).toBeNull();
  });

  it("builds a minimal environment: passed variables and its own, nothing else of the server's", () => {
    const config = parseCliAgents('{"x": {"command": ["x"], "passEnv": ["ANTHROPIC_API_KEY", "UNSET"], "env": {"MODE": "1"}}}').x;
    const env = cliEnvironment(config, { ANTHROPIC_API_KEY: "k", OPENAI_API_KEY: "secret", DATABASE_URL: "pg://", HOME: "/root" });
    expect(env.ANTHROPIC_API_KEY).toBe("k");
    expect(env.MODE).toBe("1");
    expect(env).not.toHaveProperty("HOME");
    expect(env).not.toHaveProperty("OPENAI_API_KEY");
    expect(env).not.toHaveProperty("DATABASE_URL");
    expect(env).not.toHaveProperty("UNSET");
  });
});
