/**
 * What the benchmark does as a user: a person's session (sign-up, conversation, admin
 * edits, a personal API token) through the app's own routes, the automation API with
 * that token, and Socket.IO clients exactly as the browser connects them.
 */
import { io, type Socket } from "socket.io-client";
import type { ClientToServerEvents, ConversationEventDTO, JoinAck, ServerToClientEvents } from "../../server/protocol/events.ts";
import type { BatonServer } from "./launch.ts";

export type BatonSocket = Socket<ServerToClientEvents, ClientToServerEvents>;

async function expectOk(response: Response, what: string): Promise<Response> {
  if (!response.ok) throw new Error(`${what}: ${response.status} ${await response.text()}`);
  return response;
}

/** `token`: the person's API token; `server.token` (BATON_API_TOKEN) opens `/metrics`. */
export function apiClient(server: Pick<BatonServer, "baseURL" | "token">, token: string) {
  const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
  const call = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const response = await fetch(`${server.baseURL}/api/v1${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return (await (await expectOk(response, `${method} /api/v1${path}`)).json()) as T;
  };
  return {
    submitPlan: (conversationId: string, plan: unknown) => call<{ id: string }>("POST", `/conversations/${conversationId}/plans`, plan),
    plan: (planId: string) => call<ApiPlan>("GET", `/plans/${planId}`),
    step: (planId: string, index: number) => call<ApiStepDetail>("GET", `/plans/${planId}/steps/${index}`),
    /**
     * The server's Prometheus metrics (`/metrics`, which takes the API token too). Reading
     * them starts a new event-loop window: prom-client resets its histogram on each scrape.
     */
    metrics: async (): Promise<ServerMetrics> => {
      const response = await fetch(`${server.baseURL}/metrics`, { headers: { authorization: `Bearer ${server.token}` } });
      return parseMetrics(await (await expectOk(response, "GET /metrics")).text());
    },
  };
}
export type ApiClient = ReturnType<typeof apiClient>;

export interface ApiPlan {
  id: string;
  status: string;
  createdAt: string;
  endedAt: string | null;
  steps: { index: number; status: string; startedAt: string | null; endedAt: string | null }[];
}
export interface ApiStepDetail {
  log: { at: string; phase: string; message: string; data: unknown }[];
  runs: { id: string; startedAt: string | null; endedAt: string | null }[];
}
export interface ServerMetrics {
  /** how late the event loop ran since the previous scrape, in ms (the server's baton_event_loop_delay_seconds) */
  eventLoopDelayMs: { p99: number; max: number };
  /** prom-client's figures for the same window: the 10 ms between the histogram's ticks plus the delay */
  tickIntervalMs: { p99: number };
  /** user + system since the process started */
  cpuMs: number;
}

function parseMetrics(text: string): ServerMetrics {
  const value = (name: string) => {
    const line = text.split("\n").find((l) => l.startsWith(`${name} `));
    if (!line) throw new Error(`/metrics has no ${name}`);
    return Number(line.slice(name.length + 1));
  };
  const delay = (stat: string) => value(`baton_event_loop_delay_seconds{stat="${stat}"}`) * 1000;
  return {
    eventLoopDelayMs: { p99: delay("p99"), max: delay("max") },
    tickIntervalMs: { p99: value("baton_process_nodejs_eventloop_lag_p99_seconds") * 1000 },
    cpuMs: value("baton_process_process_cpu_seconds_total") * 1000,
  };
}

/** A person signed up through the app (the first account is the admin), holding a session cookie. */
export async function signUp(baseURL: string) {
  const origin = baseURL;
  const response = await fetch(`${baseURL}/api/auth/sign-up/email`, {
    method: "POST",
    headers: { "content-type": "application/json", origin },
    body: JSON.stringify({ name: "Bench Admin", email: "bench@example.com", password: "bench-password-1" }),
  });
  await expectOk(response, "sign-up");
  const cookie = response.headers
    .getSetCookie()
    .map((line) => line.split(";")[0])
    .join("; ");
  if (!cookie) throw new Error("sign-up set no session cookie");
  const call = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const reply = await fetch(`${baseURL}${path}`, {
      method,
      headers: { cookie, origin, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return (await (await expectOk(reply, `${method} ${path}`)).json()) as T;
  };
  return {
    cookie,
    /** a conversation with the sub-agents, owned by this person */
    async createConversation(title: string): Promise<string> {
      const { id } = await call<{ id: string }>("POST", "/api/conversations", { title, agentHandles: ["researcher", "analyst", "writer"] });
      return id;
    },
    /** Settings → API tokens: the API then acts as this person */
    async createApiToken(): Promise<string> {
      const { token } = await call<{ token: string }>("POST", "/api/tokens", {
        name: "bench",
        scopes: ["read", "write"],
        expiresInDays: 1,
      });
      return token;
    },
    /** Admin → Agents: enough concurrency that the DAGs are bounded by their critical path, not a pool */
    async raiseAgentConcurrency(concurrency: number): Promise<void> {
      const { agents } = await call<{ agents: ({ id: string; concurrency: number } & Record<string, unknown>)[] }>(
        "GET",
        "/api/admin/agents",
      );
      for (const agent of agents) {
        const { id, updatedAt: _updatedAt, ...fields } = agent;
        await call("PUT", `/api/admin/agents/${id}`, { ...fields, concurrency });
      }
    },
  };
}

/** A browser's socket: connected with the session cookie, joined to one conversation. */
export async function connectSocket(baseURL: string, cookie: string, conversationId: string, address: string): Promise<BatonSocket> {
  const socket: BatonSocket = io(baseURL, {
    extraHeaders: { cookie, "x-forwarded-for": address },
    transports: ["websocket"],
    reconnection: false,
  });
  await new Promise<void>((resolve, reject) => {
    socket.once("connect", () => resolve());
    socket.once("connect_error", (error) => reject(error));
  });
  // as a browser does: the snapshot first, then live events after its seq (a long
  // conversation's whole history is more than a join replays)
  const snapshot = await fetch(`${baseURL}/api/conversations/${conversationId}`, { headers: { cookie, "x-forwarded-for": address } });
  if (!snapshot.ok) throw new Error(`conversation snapshot: ${snapshot.status}`);
  const { lastSeq } = (await snapshot.json()) as { lastSeq: number };
  const ack = await new Promise<JoinAck>((resolve) => socket.emit("conversation-join", { conversationId, afterSeq: lastSeq }, resolve));
  if (!ack.ok) throw new Error(`conversation-join: ${ack.error}`);
  return socket;
}

/**
 * Tells when plans end, from the socket's events (no polling that could slow the run).
 * Listening starts before any plan is submitted, so a fast plan's end is not missed.
 */
export function watchPlans(socket: BatonSocket) {
  const ended = new Map<string, string>();
  const waiting = new Map<string, (status: string) => void>();
  socket.on("conversation-events", (events: ConversationEventDTO[]) => {
    for (const event of events) {
      if (event.type !== "plan-updated" || !["completed", "partial", "failed", "cancelled"].includes(event.payload.status)) continue;
      ended.set(event.payload.planId, event.payload.status);
      waiting.get(event.payload.planId)?.(event.payload.status);
    }
  });
  return {
    ended(planId: string, timeoutMs = 300_000): Promise<string> {
      const known = ended.get(planId);
      if (known) return Promise.resolve(known);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`plan ${planId} did not end within ${timeoutMs} ms`)), timeoutMs);
        waiting.set(planId, (status) => {
          clearTimeout(timer);
          waiting.delete(planId);
          resolve(status);
        });
      });
    },
  };
}
