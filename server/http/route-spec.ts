/**
 * Route handlers and the route table (protocol/rest/): a body is read with its
 * route's schema, an answer is typed by its route's response schema and given the
 * route's status, so a handler and the browser cannot disagree on a shape unnoticed.
 */
import type { z } from "zod";
import type { ResponseBody, RouteSpec } from "../protocol/rest/define.ts";
import { parseJson } from "./body.ts";
import { invalidInput } from "./errors.ts";

/** The request's JSON body (or an already-read text, for signed webhooks), parsed with the route's schema. */
export function readBody<B extends z.ZodType>(spec: RouteSpec & { body: B }, request: Request | string): Promise<z.output<B>> {
  return parseJson(request, spec.body);
}

/** The request's query string parsed with the route's query schema; else 400 naming each offending parameter. */
export function readQuery<Q extends z.ZodType>(spec: RouteSpec & { query: Q }, request: Request): z.output<Q> {
  const parsed = spec.query.safeParse(Object.fromEntries(new URL(request.url).searchParams));
  if (parsed.success) return parsed.data;
  throw invalidInput(parsed.error);
}

/** The route's answer with its success status; a shape other than its response schema's fails typecheck. */
export function respond<S extends RouteSpec & { response: z.ZodType }>(
  spec: S,
  data: ResponseBody<S>,
  init: { headers?: Record<string, string>; status?: number } = {},
): Response {
  return Response.json(data, { status: init.status ?? spec.status ?? 200, headers: init.headers });
}

/** 204 for a route that answers with no body. */
export function noContent(spec: RouteSpec & { response: null }): Response {
  return new Response(null, { status: spec.status ?? 204 });
}
