import { createServer, type Server, type ServerResponse } from "node:http";
import { Effect } from "effect";
import type { Registry } from "prom-client";

/** Writes the registry in the Prometheus text format. */
export const sendMetrics = async (res: ServerResponse, registry: Registry, extraHeaders = {}) => {
  const body = await registry.metrics();
  res.writeHead(200, { ...extraHeaders, "content-type": registry.contentType, "cache-control": "no-store" });
  res.end(body);
};

const json = (res: ServerResponse, status: number, code: string, error: string) => {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify({ error, code }));
};

/**
 * GET /metrics on its own port (METRICS_PORT), for processes without the
 * gateway's HTTP port or deployments that keep metrics off the public port.
 * Open to whoever reaches the port: keep it on the internal network.
 */
export const serveMetrics = (registry: Registry, port: number, host = "0.0.0.0") =>
  Effect.acquireRelease(
    Effect.async<Server, Error>((resume) => {
      const server = createServer((req, res) => {
        req.resume();
        const path = (req.url ?? "/").split("?")[0];
        if (path !== "/metrics") return json(res, 404, "NOT_FOUND", "Only GET /metrics is served here.");
        if (req.method !== "GET" && req.method !== "HEAD")
          return json(res, 405, "METHOD_NOT_ALLOWED", "Use GET.");
        sendMetrics(res, registry).catch(() =>
          json(res, 500, "INTERNAL_ERROR", "The metrics could not be collected."),
        );
      });
      server.once("error", (error) => resume(Effect.fail(error)));
      server.listen(port, host, () => resume(Effect.succeed(server)));
    }),
    (server) =>
      Effect.promise(
        () =>
          new Promise<void>((resolve) => {
            server.close(() => resolve());
            server.closeAllConnections();
          }),
      ),
  );
