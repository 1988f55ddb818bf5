/**
 * The operator endpoints the custom server answers before Next: `/healthz`, `/readyz`
 * (no session: load balancers probe them; they name check states only) and `/metrics`
 * (bearer token).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Registry } from "prom-client";
import type { createHealth } from "./health.ts";
import { bearerMatches } from "./metrics.ts";

/** 200 while the database answers, is migrated, and the process is not draining. */
export const READINESS_PATH = "/readyz";

export function createOpsRoutes(input: {
  health: Awaited<ReturnType<typeof createHealth>>;
  metrics: Registry;
  /** any of these opens /metrics; none set turns it off */
  metricsTokens: (string | undefined)[];
}): (request: IncomingMessage, response: ServerResponse) => boolean {
  const { health, metrics, metricsTokens } = input;
  return (request, response) => {
    switch (request.url) {
      case "/healthz":
        sendJson(response, 200, { status: "ok" });
        return true;
      case READINESS_PATH:
        void health.readiness().then((report) => sendJson(response, report.ready ? 200 : 503, report));
        return true;
      case "/metrics":
        if (!metricsTokens.some(Boolean)) sendJson(response, 404, { error: "metrics are off: set BATON_METRICS_TOKEN" });
        else if (!bearerMatches(request.headers.authorization, metricsTokens))
          sendJson(response, 401, { error: "a bearer token is required" });
        else {
          void metrics.metrics().then(
            (text) => {
              response.writeHead(200, { "content-type": metrics.contentType, "cache-control": "no-store" });
              response.end(text);
            },
            () => sendJson(response, 503, { error: "metrics could not be read from the database" }),
          );
        }
        return true;
      default:
        return false;
    }
  };
}

function sendJson(response: ServerResponse, status: number, body: unknown) {
  response.writeHead(status, { "content-type": "application/json", "cache-control": "no-store" });
  response.end(JSON.stringify(body));
}
