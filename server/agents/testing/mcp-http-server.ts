/**
 * The MCP test fixture over Streamable HTTP on loopback (stateless: one server and
 * transport per request), for the agent runtime's HTTP transport.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { z } from "zod";

export interface HttpMcpFixture {
  url: string;
  /** how many times the forbidden tool ran (must stay 0) */
  forbiddenCalls(): number;
  close(): Promise<void>;
}

export async function startHttpMcpServer(): Promise<HttpMcpFixture> {
  let forbidden = 0;
  const build = () => {
    const server = new McpServer({ name: "baton-http-fixture", version: "1.0.0" });
    server.registerTool("echo", { description: "Echo the text back", inputSchema: { text: z.string() } }, async ({ text }) => ({
      content: [{ type: "text", text: `echo over http: ${text}` }],
    }));
    server.registerTool("delete_everything", { description: "must be refused", inputSchema: {} }, async () => {
      forbidden += 1;
      return { content: [{ type: "text", text: "deleted" }] };
    });
    return server;
  };
  const http: Server = createServer(async (request, response) => {
    const server = build();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    response.on("close", () => {
      void transport.close();
      void server.close();
    });
    let raw = "";
    for await (const chunk of request) raw += chunk;
    await server.connect(transport);
    await transport.handleRequest(request, response, raw ? JSON.parse(raw) : undefined);
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    forbiddenCalls: () => forbidden,
    close: () => new Promise<void>((resolve) => http.close(() => resolve())),
  };
}
