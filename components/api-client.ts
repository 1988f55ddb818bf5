/**
 * The browser's calls to the app's routes, built from the route table
 * (server/protocol/rest/): `api.members.setRole({ conversationId, userId }, { role })`.
 * Paths are filled from the table (each parameter URL-encoded), bodies and answers are
 * typed by its schemas, and outside production every answer is checked against its
 * schema, so a drifted shape fails loudly in development and tests. Errors carry the
 * server's code and message. To add an endpoint, add it to the table (see
 * server/protocol/rest/define.ts); it appears here by itself.
 */
import { z } from "zod";
import {
  buildPath,
  buildQuery,
  type HasParams,
  type PathParams,
  type RequestBody,
  type RequestQuery,
  type ResponseBody,
  type RouteSpec,
} from "@/server/protocol/rest/define.ts";
import { browserRoutes } from "@/server/protocol/rest/browser.ts";
import { apiErrorSchema } from "@/server/protocol/rest/errors.ts";

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** better-auth answers `{ code, message }`; the app's routes `{ error: { code, message } }` */
function errorOf(status: number, data: unknown): ApiError {
  const parsed = apiErrorSchema.safeParse(data);
  if (parsed.success) return new ApiError(status, parsed.data.error.code, parsed.data.error.message);
  const flat = typeof data === "object" && data !== null ? (data as Record<string, unknown>) : {};
  const message = typeof flat.message === "string" ? flat.message : `Request failed (${status})`;
  return new ApiError(status, typeof flat.code === "string" ? flat.code : "error", message);
}

const checkAnswers = process.env.NODE_ENV !== "production";

async function send(spec: RouteSpec, path: string, body: unknown): Promise<unknown> {
  const init: RequestInit = { method: spec.method, credentials: "same-origin" };
  if (body instanceof FormData) init.body = body;
  else if (body !== undefined) {
    init.headers = { "Content-Type": "application/json" };
    init.body = JSON.stringify(body);
  }
  const response = await fetch(path, init);
  const data: unknown = response.status === 204 ? undefined : await response.json().catch(() => null);
  if (!response.ok) throw errorOf(response.status, data);
  if (checkAnswers && spec.response !== null) {
    const parsed = spec.response.safeParse(data);
    if (!parsed.success) {
      throw new ApiError(response.status, "bad_response", `${spec.method} ${spec.path} answered another shape: ${parsed.error.message}`);
    }
  }
  return data;
}

type ParamsAndBody<S extends RouteSpec> =
  HasParams<S> extends true
    ? S["body"] extends z.ZodType | "form-data"
      ? [params: PathParams<S["path"]>, body: RequestBody<S>]
      : [params: PathParams<S["path"]>]
    : S["body"] extends z.ZodType | "form-data"
      ? [body: RequestBody<S>]
      : [];

/** path parameters (when the path has any), then the body (when it takes one), then the query (when it has one) */
type Args<S extends RouteSpec> = S["query"] extends z.ZodType ? [...ParamsAndBody<S>, query: RequestQuery<S>] : ParamsAndBody<S>;

export type Endpoint<S extends RouteSpec> = (...args: Args<S>) => Promise<ResponseBody<S>>;

type Client<T> = { [K in keyof T]: T[K] extends RouteSpec ? Endpoint<T[K]> : Client<T[K]> };

/** One endpoint as a function: path parameters first (when the path has any), then the body, then the query. */
export function endpoint<S extends RouteSpec>(spec: S): Endpoint<S> {
  const hasParams = spec.path.includes(":");
  const hasBody = spec.body !== undefined;
  return ((...args: unknown[]) => {
    let at = 0;
    const params = (hasParams ? args[at++] : {}) as PathParams<S["path"]>;
    const body = hasBody ? args[at++] : undefined;
    const query = spec.query !== undefined ? (args[at] as Record<string, unknown>) : undefined;
    return send(spec, `${buildPath(spec.path, params)}${buildQuery(query)}`, body);
  }) as Endpoint<S>;
}

function bind<T extends Record<string, Record<string, RouteSpec>>>(table: T): Client<T> {
  return Object.fromEntries(
    Object.entries(table).map(([group, specs]) => [
      group,
      Object.fromEntries(Object.entries(specs).map(([name, spec]) => [name, endpoint(spec)])),
    ]),
  ) as Client<T>;
}

export const api = bind(browserRoutes);

/** A route's URL, for links (a download, an image): `apiPath(routes.conversations.artifact, { … })`. */
export function apiPath<S extends RouteSpec>(spec: S, params: PathParams<S["path"]>): string {
  return buildPath(spec.path, params);
}

export { browserRoutes as routes };
