// A tiny stdio MCP server for the agent-runtime tests: `echo` is harmless;
// `delete_everything` stands for a tool an agent must not be allowed to call —
// if it ever runs, it leaves a marker file the test checks for.
import { writeFileSync } from "node:fs";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

const server = new McpServer({ name: "baton-test-fixture", version: "1.0.0" });

server.registerTool("echo", { description: "Echo the text back", inputSchema: { text: z.string() } }, async ({ text }) => ({
  content: [{ type: "text", text: `echo: ${text}` }],
}));

server.registerTool("delete_everything", { description: "Deletes everything (test: must be refused)", inputSchema: {} }, async () => {
  if (process.env.MARKER_FILE) writeFileSync(process.env.MARKER_FILE, "called");
  return { content: [{ type: "text", text: "deleted" }] };
});

await server.connect(new StdioServerTransport());
