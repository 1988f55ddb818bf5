/**
 * Test helper: a loopback HTTP server that speaks the real wire formats of
 * OpenAI Chat Completions and Anthropic Messages — server-sent events when the
 * client asks for a stream, plain JSON otherwise — so the real AI SDK
 * providers can be driven through their baseURL.
 *
 * Each test scripts the turns the "model" takes, in order; every request takes
 * the next turn and is recorded for assertions. Past the script, a responder (if set)
 * computes each request's turn from the request itself (fake-responder.ts).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export type WireFormat = "openai" | "anthropic";

export interface ScriptedToolCall {
  id: string;
  name: string;
  /** raw JSON text of the arguments, sent as is (may be malformed on purpose) */
  args: string;
}

/**
 * Usage as the provider reports it: for OpenAI `input` is prompt_tokens (cached ones
 * included), for Anthropic input_tokens (cache reads and writes not included).
 */
export interface ScriptedUsage {
  input: number;
  output: number;
  cacheRead?: number;
  cacheWrite?: number;
}

export type ScriptedTurn =
  /** streamed text in `chunks` pieces; `refused`: the provider's content filter ends it (content_filter, refusal) */
  | { kind: "text"; text: string; chunks?: number; usage?: ScriptedUsage; refused?: boolean }
  /** optional text, then tool calls whose arguments are split into `chunks` pieces each */
  | { kind: "tools"; text?: string; calls: ScriptedToolCall[]; chunks?: number; interleave?: boolean; usage?: ScriptedUsage }
  /** an HTTP error response with the provider's error body */
  | { kind: "error"; status: number; message: string; errorType?: string; code?: string; headers?: Record<string, string> }
  /** starts streaming text, then cuts the connection mid-stream */
  | { kind: "drop"; text: string }
  /** starts streaming text, then sends the provider's in-stream error event and ends the stream */
  | { kind: "stream-error"; text: string; message: string; errorType?: string };

export interface RecordedRequest {
  format: WireFormat;
  path: string;
  headers: IncomingMessage["headers"];
  body: Record<string, unknown>;
  stream: boolean;
}

/** computes the turn for a request the script does not cover */
export type FakeResponder = (request: RecordedRequest) => ScriptedTurn | Promise<ScriptedTurn>;

export interface FakeModelServer {
  url: string;
  /** base URL to give the provider (`…/v1`) */
  baseURL: string;
  requests: RecordedRequest[];
  script(...turns: ScriptedTurn[]): void;
  /** while set, every request gets one of these turns in turn (an outage) and the script waits */
  outage(turns: ScriptedTurn[] | null): void;
  /** the turn for requests once the script is used up (default: a 500 "script exhausted") */
  whenEmpty(turn: ScriptedTurn | null): void;
  /** while set, a request the script does not cover gets the turn this computes (before `whenEmpty`) */
  respond(responder: FakeResponder | null): void;
  /** forget the script, the responder and the recorded requests (between tests) */
  reset(): void;
  remaining(): number;
  close(): Promise<void>;
}

function split(text: string, pieces: number): string[] {
  if (pieces <= 1 || text.length <= 1) return [text];
  const size = Math.ceil(text.length / pieces);
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

const DEFAULT_USAGE: ScriptedUsage = { input: 100, output: 20 };
const usageOf = (turn: ScriptedTurn): ScriptedUsage =>
  (turn.kind === "text" || turn.kind === "tools") && turn.usage ? turn.usage : DEFAULT_USAGE;

const isRefusal = (turn: ScriptedTurn) => turn.kind === "text" && turn.refused === true;

const sse = (data: unknown, event?: string) => `${event ? `event: ${event}\n` : ""}data: ${JSON.stringify(data)}\n\n`;

// ---------------------------------------------------------------- OpenAI Chat Completions

function openaiChunk(delta: Record<string, unknown>, finishReason: string | null = null) {
  return {
    id: "chatcmpl-fake",
    object: "chat.completion.chunk",
    created: 1_700_000_000,
    model: "fake-model",
    choices: [{ index: 0, delta, finish_reason: finishReason }],
  };
}

function openaiStream(turn: Exclude<ScriptedTurn, { kind: "error" }>): string[] {
  const events: string[] = [sse(openaiChunk({ role: "assistant", content: "" }))];
  const text = turn.kind === "tools" ? (turn.text ?? "") : turn.text;
  for (const piece of text ? split(text, turn.kind === "tools" ? 2 : turn.kind === "text" ? (turn.chunks ?? 4) : 4) : []) {
    events.push(sse(openaiChunk({ content: piece })));
  }
  if (turn.kind === "drop") return events; // the caller cuts the connection here
  if (turn.kind === "stream-error") {
    // what OpenAI sends when a stream fails after it started: an error object in place of a chunk
    events.push(sse({ error: { message: turn.message, type: turn.errorType ?? "server_error", param: null, code: null } }));
    return events;
  }
  if (turn.kind === "tools") {
    const pieces = turn.calls.map((call) => split(call.args, turn.chunks ?? 3));
    turn.calls.forEach((call, index) => {
      events.push(
        sse(openaiChunk({ tool_calls: [{ index, id: call.id, type: "function", function: { name: call.name, arguments: "" } }] })),
      );
      if (!turn.interleave)
        for (const piece of pieces[index]) events.push(sse(openaiChunk({ tool_calls: [{ index, function: { arguments: piece } }] })));
    });
    if (turn.interleave) {
      // parallel calls whose argument chunks arrive interleaved, as OpenAI sends them
      const longest = Math.max(...pieces.map((p) => p.length));
      for (let i = 0; i < longest; i++) {
        pieces.forEach((callPieces, index) => {
          if (i < callPieces.length) events.push(sse(openaiChunk({ tool_calls: [{ index, function: { arguments: callPieces[i] } }] })));
        });
      }
    }
  }
  events.push(sse(openaiChunk({}, turn.kind === "tools" ? "tool_calls" : isRefusal(turn) ? "content_filter" : "stop")));
  const usage = usageOf(turn);
  events.push(
    sse({
      id: "chatcmpl-fake",
      object: "chat.completion.chunk",
      created: 1_700_000_000,
      model: "fake-model",
      choices: [],
      usage: {
        prompt_tokens: usage.input,
        completion_tokens: usage.output,
        total_tokens: usage.input + usage.output,
        ...(usage.cacheRead ? { prompt_tokens_details: { cached_tokens: usage.cacheRead } } : {}),
      },
    }),
  );
  events.push("data: [DONE]\n\n");
  return events;
}

function openaiJson(turn: ScriptedTurn) {
  const text = turn.kind === "error" ? "" : turn.kind === "tools" ? (turn.text ?? "") : turn.text;
  const toolCalls =
    turn.kind === "tools"
      ? turn.calls.map((call) => ({ id: call.id, type: "function", function: { name: call.name, arguments: call.args } }))
      : undefined;
  return {
    id: "chatcmpl-fake",
    object: "chat.completion",
    created: 1_700_000_000,
    model: "fake-model",
    choices: [
      { index: 0, message: { role: "assistant", content: text, tool_calls: toolCalls }, finish_reason: toolCalls ? "tool_calls" : "stop" },
    ],
    usage: { prompt_tokens: 50, completion_tokens: 10, total_tokens: 60 },
  };
}

function openaiError(turn: Extract<ScriptedTurn, { kind: "error" }>) {
  return { error: { message: turn.message, type: turn.errorType ?? "server_error", param: null, code: turn.code ?? null } };
}

// ---------------------------------------------------------------- Anthropic Messages

function anthropicStream(turn: Exclude<ScriptedTurn, { kind: "error" }>): string[] {
  const usage = usageOf(turn);
  const events: string[] = [
    sse(
      {
        type: "message_start",
        message: {
          id: "msg_fake",
          type: "message",
          role: "assistant",
          model: "claude-fake",
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: {
            input_tokens: usage.input,
            output_tokens: 1,
            ...(usage.cacheRead ? { cache_read_input_tokens: usage.cacheRead } : {}),
            ...(usage.cacheWrite ? { cache_creation_input_tokens: usage.cacheWrite } : {}),
          },
        },
      },
      "message_start",
    ),
  ];
  let block = 0;
  const text = turn.kind === "tools" ? (turn.text ?? "") : turn.text;
  if (text) {
    events.push(sse({ type: "content_block_start", index: block, content_block: { type: "text", text: "" } }, "content_block_start"));
    events.push(sse({ type: "ping" }, "ping"));
    for (const piece of split(text, turn.kind === "text" ? (turn.chunks ?? 4) : 2)) {
      events.push(sse({ type: "content_block_delta", index: block, delta: { type: "text_delta", text: piece } }, "content_block_delta"));
    }
    if (turn.kind === "drop") return events;
    if (turn.kind === "stream-error") {
      events.push(sse({ type: "error", error: { type: turn.errorType ?? "overloaded_error", message: turn.message } }, "error"));
      return events;
    }
    events.push(sse({ type: "content_block_stop", index: block }, "content_block_stop"));
    block++;
  }
  if (turn.kind === "tools") {
    // Anthropic streams content blocks one after another: parallel calls are consecutive tool_use blocks
    for (const call of turn.calls) {
      events.push(
        sse(
          { type: "content_block_start", index: block, content_block: { type: "tool_use", id: call.id, name: call.name, input: {} } },
          "content_block_start",
        ),
      );
      for (const piece of split(call.args, turn.chunks ?? 3)) {
        events.push(
          sse(
            { type: "content_block_delta", index: block, delta: { type: "input_json_delta", partial_json: piece } },
            "content_block_delta",
          ),
        );
      }
      events.push(sse({ type: "content_block_stop", index: block }, "content_block_stop"));
      block++;
    }
  }
  events.push(
    sse(
      {
        type: "message_delta",
        delta: { stop_reason: turn.kind === "tools" ? "tool_use" : isRefusal(turn) ? "refusal" : "end_turn", stop_sequence: null },
        usage: { output_tokens: usage.output },
      },
      "message_delta",
    ),
  );
  events.push(sse({ type: "message_stop" }, "message_stop"));
  return events;
}

function anthropicJson(turn: ScriptedTurn) {
  const content: unknown[] = [];
  const text = turn.kind === "error" ? "" : turn.kind === "tools" ? (turn.text ?? "") : turn.text;
  if (text) content.push({ type: "text", text });
  if (turn.kind === "tools")
    for (const call of turn.calls) content.push({ type: "tool_use", id: call.id, name: call.name, input: JSON.parse(call.args) });
  return {
    id: "msg_fake",
    type: "message",
    role: "assistant",
    model: "claude-fake",
    content,
    stop_reason: turn.kind === "tools" ? "tool_use" : "end_turn",
    stop_sequence: null,
    usage: { input_tokens: 50, output_tokens: 10 },
  };
}

function anthropicError(turn: Extract<ScriptedTurn, { kind: "error" }>) {
  return { type: "error", error: { type: turn.errorType ?? "api_error", message: turn.message } };
}

// ---------------------------------------------------------------- server

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

/** `port`: a fixed port (a browser test's server is told it before the fake starts); default: any free one. */
export async function startFakeModelServer(options: { port?: number } = {}): Promise<FakeModelServer> {
  const queue: ScriptedTurn[] = [];
  const requests: RecordedRequest[] = [];
  let outageTurns: ScriptedTurn[] | null = null;
  let outageCount = 0;
  let emptyTurn: ScriptedTurn | null = null;
  let responder: FakeResponder | null = null;

  async function handle(request: IncomingMessage, response: ServerResponse) {
    const path = request.url ?? "";
    const format: WireFormat | null = path.endsWith("/chat/completions") ? "openai" : path.endsWith("/messages") ? "anthropic" : null;
    const raw = await readBody(request);
    if (format == null) {
      response.writeHead(404).end();
      return;
    }
    const body = JSON.parse(raw) as Record<string, unknown>;
    const stream = body.stream === true;
    const recorded: RecordedRequest = { format, path, headers: request.headers, body, stream };
    requests.push(recorded);
    const turn =
      (outageTurns && outageTurns.length > 0 ? outageTurns[outageCount++ % outageTurns.length] : undefined) ??
      queue.shift() ??
      (responder ? await responder(recorded) : emptyTurn);
    if (!turn) {
      response.writeHead(500, { "content-type": "application/json" });
      response.end(
        JSON.stringify(
          format === "openai"
            ? openaiError({ kind: "error", status: 500, message: "fake server: script exhausted", errorType: "invalid_request_error" })
            : anthropicError({ kind: "error", status: 500, message: "fake server: script exhausted", errorType: "invalid_request_error" }),
        ),
      );
      return;
    }
    if (turn.kind === "error") {
      response.writeHead(turn.status, { "content-type": "application/json", ...turn.headers });
      response.end(JSON.stringify(format === "openai" ? openaiError(turn) : anthropicError(turn)));
      return;
    }
    if (!stream) {
      response.writeHead(200, { "content-type": "application/json" });
      response.end(JSON.stringify(format === "openai" ? openaiJson(turn) : anthropicJson(turn)));
      return;
    }
    response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
    const events = format === "openai" ? openaiStream(turn) : anthropicStream(turn);
    for (const event of events) {
      response.write(event);
      // let the client see the chunks arrive separately, as over a real network
      await new Promise((resolve) => setImmediate(resolve));
    }
    if (turn.kind === "drop") {
      await new Promise((resolve) => setTimeout(resolve, 5));
      response.socket?.destroy();
      return;
    }
    response.end();
  }

  const server: Server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      response.writeHead(500).end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    baseURL: `${url}/v1`,
    requests,
    script: (...turns) => queue.push(...turns),
    outage: (turns) => {
      outageTurns = turns;
    },
    whenEmpty: (turn) => {
      emptyTurn = turn;
    },
    respond: (next) => {
      responder = next;
    },
    reset: () => {
      queue.length = 0;
      requests.length = 0;
      outageTurns = null;
      emptyTurn = null;
      responder = null;
    },
    remaining: () => queue.length,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
