import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeModelServer, type FakeModelServer } from "./testing/fake-model-server.ts";
import { parseMcpServers } from "./mcp.ts";
import { startHttpMcpServer } from "./testing/mcp-http-server.ts";
import { agentProfile, recordingSink, runRequest, testRuntime } from "./testing/agent-fixture.ts";

const fixture = fileURLToPath(new URL("./testing/mcp-test-server.mjs", import.meta.url));

describe("MCP tools", () => {
  let server: FakeModelServer;
  beforeAll(async () => {
    server = await startFakeModelServer();
  });
  afterAll(() => server.close());

  it("calls an allowed tool of a stdio MCP server and refuses one outside the allow-list", async () => {
    const marker = join(mkdtempSync(join(tmpdir(), "baton-mcp-")), "called");
    const { runner } = testRuntime({ env: { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: server.baseURL } });
    const agent = agentProfile({
      model: "openai:gpt-test",
      allowedTools: ["fx__echo"],
      mcpServers: [{ name: "fx", transport: "stdio", command: process.execPath, args: [fixture], env: { MARKER_FILE: marker } }],
    });
    server.script(
      { kind: "tools", calls: [{ id: "call_echo", name: "fx__echo", args: JSON.stringify({ text: "hi" }) }] },
      { kind: "tools", calls: [{ id: "call_del", name: "fx__delete_everything", args: "{}" }] },
      { kind: "tools", calls: [{ id: "call_fin", name: "finish", args: JSON.stringify({ summary: "echoed", files: [] }) }] },
    );
    const sink = recordingSink();
    const result = await runner.run(runRequest({ agent, input: "Echo hi" }), sink);

    expect(result).toMatchObject({ kind: "ok", summary: "echoed", untrusted: true });
    const offered = JSON.stringify(server.requests[0].body.tools);
    expect(offered).toContain("fx__echo");
    expect(offered).not.toContain("delete_everything");
    const toolMessages = (index: number) =>
      (server.requests[index].body.messages as { role: string; content: string }[]).filter((m) => m.role === "tool").map((m) => m.content);
    // tool output is outside content: fenced as data
    expect(toolMessages(1)[0]).toContain("echo: hi");
    expect(toolMessages(1)[0]).toMatch(/<untrusted-data source=\\?"tool:fx__echo\\?">/);
    expect(toolMessages(2)[1]).toContain("not allowed");
    expect(existsSync(marker)).toBe(false);
    expect(sink.phases()).toEqual(expect.arrayContaining(["mcp", "tool-refused"]));
  }, 20_000);

  it("calls an allowed tool of an MCP server over HTTP and refuses one outside the allow-list", async () => {
    const mcp = await startHttpMcpServer();
    try {
      const { runner } = testRuntime({ env: { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: server.baseURL } });
      const agent = agentProfile({
        model: "openai:gpt-test",
        allowedTools: ["web__echo"],
        mcpServers: [{ name: "web", transport: "http", url: mcp.url }],
      });
      const before = server.requests.length;
      server.script(
        { kind: "tools", calls: [{ id: "call_echo", name: "web__echo", args: JSON.stringify({ text: "hi" }) }] },
        { kind: "tools", calls: [{ id: "call_del", name: "web__delete_everything", args: "{}" }] },
        { kind: "tools", calls: [{ id: "call_fin", name: "finish", args: JSON.stringify({ summary: "echoed", files: [] }) }] },
      );
      const result = await runner.run(runRequest({ agent, input: "Echo hi" }), recordingSink());
      expect(result).toMatchObject({ kind: "ok", summary: "echoed" });
      const offered = JSON.stringify(server.requests[before].body.tools);
      expect(offered).toContain("web__echo");
      expect(offered).not.toContain("delete_everything");
      const toolMessages = (server.requests[before + 1].body.messages as { role: string; content: string }[])
        .filter((m) => m.role === "tool")
        .map((m) => m.content);
      expect(toolMessages[0]).toContain("echo over http: hi");
      expect(mcp.forbiddenCalls()).toBe(0);
    } finally {
      await mcp.close();
    }
  }, 20_000);

  it("rejects a bad server configuration with the field named", () => {
    expect(() => parseMcpServers([{ name: "x", transport: "stdio" }])).toThrow(/stdio needs a command/);
    expect(() => parseMcpServers([{ name: "a__b", transport: "http", url: "http://x" }])).toThrow(/name/);
    expect(parseMcpServers(null)).toEqual([]);
  });
});
