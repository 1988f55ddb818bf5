/**
 * Tools from an agent's MCP servers (stdio or streamable HTTP), through the MCP
 * TypeScript SDK. Each tool is exposed to the model as `server__tool`, so two
 * servers cannot shadow each other or a built-in tool, and the allow-list can
 * name them precisely.
 *
 * Clients live for one run: a run is the unit of isolation, and a stdio server
 * started for it is stopped with it.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { dynamicTool, jsonSchema, type ToolSet } from "ai";
import { z } from "zod";
import type { McpServerConfig } from "../ports/agents.ts";
import { fenceUntrusted } from "../core/fence.ts";

export const MCP_NAME_SEPARATOR = "__";

const serverConfigSchema = z.object({
  name: z
    .string()
    .regex(/^[A-Za-z0-9_-]+$/)
    .refine((name) => !name.includes(MCP_NAME_SEPARATOR), "no '__' in a server name"),
  transport: z.enum(["stdio", "http"]),
  command: z.string().optional(),
  args: z.array(z.string()).optional(),
  env: z.record(z.string(), z.string()).optional(),
  url: z.string().url().optional(),
});
/** built once: zod walks a schema it has not seen before on its first parse */
const serverListSchema = z.array(serverConfigSchema);

/** Agent.mcpServers is JSON from the database: parse it, naming what is wrong. */
export function parseMcpServers(value: unknown): McpServerConfig[] {
  // the usual case, every run of an agent without MCP servers: nothing to parse
  if (value == null || (Array.isArray(value) && value.length === 0)) return [];
  const parsed = serverListSchema.safeParse(value);
  if (!parsed.success)
    throw new Error(`Invalid mcpServers: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`);
  for (const server of parsed.data) {
    if (server.transport === "stdio" && !server.command) throw new Error(`MCP server "${server.name}": stdio needs a command`);
    if (server.transport === "http" && !server.url) throw new Error(`MCP server "${server.name}": http needs a url`);
  }
  return parsed.data;
}

export interface McpToolInfo {
  /** namespaced: server__tool */
  name: string;
  server: string;
  tool: string;
  description: string;
}

export interface McpSession {
  tools: McpToolInfo[];
  /** AI SDK tools for the given namespaced names (the allowed ones) */
  toolSet(names: string[], onResult: () => void): ToolSet;
  close(): Promise<void>;
}

/** Opens one MCP session for a run; injectable so tests and the server can swap it. */
export type McpConnector = (servers: McpServerConfig[], signal: AbortSignal) => Promise<McpSession>;

type McpContent = { type: string; text?: string; [key: string]: unknown };

function contentToText(content: McpContent[] | undefined): string {
  return (content ?? []).map((part) => (part.type === "text" ? (part.text ?? "") : `[${part.type} content]`)).join("\n");
}

export const connectMcpServers: McpConnector = async (servers, signal) => {
  const clients = new Map<string, Client>();
  const schemas = new Map<string, unknown>();
  const tools: McpToolInfo[] = [];
  const close = async () => {
    await Promise.allSettled([...clients.values()].map((client) => client.close()));
  };
  try {
    for (const server of servers) {
      const client = new Client({ name: "baton-agent", version: "1.0.0" });
      const transport =
        server.transport === "stdio"
          ? new StdioClientTransport({
              command: server.command!,
              args: server.args ?? [],
              // the server gets only what its config gives it, plus PATH to find binaries
              env: { PATH: process.env.PATH ?? "", ...server.env },
              stderr: "pipe",
            })
          : new StreamableHTTPClientTransport(new URL(server.url!));
      await client.connect(transport, { signal });
      clients.set(server.name, client);
      const listed = await client.listTools(undefined, { signal });
      for (const entry of listed.tools) {
        const name = `${server.name}${MCP_NAME_SEPARATOR}${entry.name}`;
        tools.push({ name, server: server.name, tool: entry.name, description: entry.description ?? "" });
        schemas.set(name, entry.inputSchema);
      }
    }
  } catch (error) {
    await close();
    throw error;
  }

  return {
    tools,
    toolSet(names, onResult) {
      const set: ToolSet = {};
      for (const info of tools) {
        if (!names.includes(info.name)) continue;
        const client = clients.get(info.server)!;
        set[info.name] = dynamicTool({
          description: `[${info.server}] ${info.description}`,
          inputSchema: jsonSchema(schemas.get(info.name) as Parameters<typeof jsonSchema>[0]),
          execute: async (input, options) => {
            const result = await client.callTool({ name: info.tool, arguments: input as Record<string, unknown> }, undefined, {
              signal: options.abortSignal,
            });
            // tool output is outside content: the run is tainted and the model sees it fenced
            onResult();
            const text = contentToText(result.content as McpContent[] | undefined);
            const fenced = fenceUntrusted(text, `tool:${info.name}`);
            if (result.isError) throw new Error(`MCP tool ${info.name} failed:\n${fenced}`);
            return fenced;
          },
        });
      }
      return set;
    },
    close,
  };
};
