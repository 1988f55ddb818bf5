/**
 * The browser's contract with the app's routes, one entry per endpoint: method, path
 * (with `:name` parameters), the request body's zod schema and the response's. Route
 * handlers read bodies with `readBody(spec)` and answer with `respond(spec, data)`
 * (server/http/route-spec.ts), so a handler that answers another shape fails
 * typecheck; the browser calls endpoints through `api` (components/api-client.ts),
 * built from the same table, so it never builds a URL or casts an answer.
 *
 * Adding an endpoint: one `defineRoute` entry in the resource's file here, listed in
 * `routes` (index.ts); the route handler uses it; the browser gets `api.<group>.<name>`.
 */
import type { z } from "zod";

export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

export interface RouteSpec {
  method: HttpMethod;
  /** `/api/conversations/:conversationId`: each `:name` is a path parameter */
  path: string;
  /** the query string's schema: an object of scalar values, encoded by the client and read with `readQuery` */
  query?: z.ZodType;
  /** a JSON body's schema; "form-data" for a multipart upload; absent: no body */
  body?: z.ZodType | "form-data";
  /** the answer's schema; null for 204 No Content */
  response: z.ZodType | null;
  /** the success status (200 unless given) */
  status?: 200 | 201 | 202 | 204;
}

export function defineRoute<const S extends RouteSpec>(spec: S): S {
  return spec;
}

type ParamNames<P extends string> = P extends `${string}:${infer Name}/${infer Rest}`
  ? Name | ParamNames<`/${Rest}`>
  : P extends `${string}:${infer Name}`
    ? Name
    : never;

/** the path parameters of a route as a server reads them from a URL: decoded text, by name */
export type RouteParams<P extends string> = { [K in ParamNames<P>]: string };

/** the path parameters of a route, by name */
export type PathParams<P extends string> = { [K in ParamNames<P>]: string | number };

export type HasParams<S extends RouteSpec> = [ParamNames<S["path"]>] extends [never] ? false : true;

/** what the browser sends: the body schema's input (defaults may be left out) */
export type RequestBody<S extends RouteSpec> = S["body"] extends z.ZodType
  ? z.input<S["body"]>
  : S["body"] extends "form-data"
    ? FormData
    : never;

/** what the browser puts in the query string (the query schema's input) */
export type RequestQuery<S extends RouteSpec> = S["query"] extends z.ZodType ? z.input<S["query"]> : never;

/** what the server answers (the response schema's input: what a handler must hand `respond`) */
export type ResponseBody<S extends RouteSpec> = S["response"] extends z.ZodType ? z.input<S["response"]> : undefined;

/** Fills a route's path parameters (each URL-encoded); a missing or empty one is an error naming it. */
export function buildPath<P extends string>(path: P, params: PathParams<P>): string {
  const values = params as Record<string, string | number | undefined>;
  return path.replace(/:([A-Za-z]\w*)/g, (_, name: string) => {
    const value = values[name];
    if (value === undefined || value === "") throw new Error(`${path}: the path parameter "${name}" is missing`);
    return encodeURIComponent(String(value));
  });
}

/** A query string from an object of scalars (`?a=1&b=x`, each URL-encoded); undefined and null values are left out. */
export function buildQuery(query: Record<string, unknown> | undefined): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query ?? {})) {
    if (value === undefined || value === null) continue;
    if (typeof value !== "string" && typeof value !== "number" && typeof value !== "boolean") {
      throw new Error(`query parameter "${name}": a ${typeof value} cannot go in a query string`);
    }
    search.set(name, String(value));
  }
  const text = search.toString();
  return text ? `?${text}` : "";
}
