import { timingSafeEqual } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { ServiceMetrics } from "../metrics/Metrics.js";
import { sendMetrics } from "../metrics/metricsServer.js";
import { COMMON_HEADERS, sendError } from "./httpResponses.js";

const sameSecret = (given: string, expected: string) => {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
};

/**
 * GET /metrics on the gateway's public port. Metrics name teams and show
 * traffic, so they are served here only when METRICS_TOKEN is set, and only to
 * a request carrying it as `Authorization: Bearer <token>` (Prometheus's
 * `authorization` scrape setting). Without the setting the path is unknown, as
 * on any port where metrics were not asked for; METRICS_PORT serves them on a
 * separate port instead.
 */
export const serveGatewayMetrics = async (
  req: IncomingMessage,
  res: ServerResponse,
  requestId: string,
  metrics: ServiceMetrics | undefined,
  token: string | undefined,
) => {
  req.resume();
  if (metrics === undefined || token === undefined)
    return sendError(
      res,
      requestId,
      404,
      "NOT_FOUND",
      "Metrics are served on this port only with METRICS_TOKEN set (as a bearer token), or on METRICS_PORT.",
    );
  const header = req.headers.authorization ?? "";
  const given = header.startsWith("Bearer ") ? header.slice("Bearer ".length).trim() : "";
  if (!sameSecret(given, token))
    return sendError(
      res,
      requestId,
      401,
      "UNAUTHORIZED_METRICS",
      "GET /metrics needs the METRICS_TOKEN as `Authorization: Bearer <token>`.",
      { "www-authenticate": 'Bearer realm="metrics"' },
    );
  try {
    await sendMetrics(res, metrics.registry, { ...COMMON_HEADERS, "x-request-id": requestId });
  } catch {
    sendError(res, requestId, 500, "INTERNAL_ERROR", "The metrics could not be collected.");
  }
};
