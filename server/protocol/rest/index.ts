/**
 * Every route of the app, by resource: the one table the route handlers and the
 * browser's client (components/api-client.ts) share. See define.ts for how to add one.
 */
import { browserRoutes } from "./browser.ts";
import { v1Routes } from "./v1.ts";

export const routes = { ...browserRoutes, v1: v1Routes };
