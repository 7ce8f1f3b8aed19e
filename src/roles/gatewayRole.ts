import { Effect, Option } from "effect";
import { AppConfig } from "../AppConfig.js";
import { ENDPOINTS } from "../contracts/endpoints.js";
import { runGateway } from "../gateway/Gateway.js";
import { buildOpenApi } from "../gateway/openapi.js";
import { Metrics } from "../metrics/Metrics.js";
import { NatsConnections } from "../nats/NatsConnections.js";
import { heartbeat } from "../presence/Presence.js";

export const SERVICE_VERSION = "0.1.0";

/** The gateway role: HTTP on PORT, forwarding to NATS as the `gateway` user. */
export const gatewayRole = Effect.gen(function* () {
  const config = yield* AppConfig;
  const nc = yield* (yield* NatsConnections).get("gateway");
  yield* runGateway(nc, {
    port: config.port,
    endpoints: ENDPOINTS,
    openApi: buildOpenApi(ENDPOINTS, SERVICE_VERSION, config.apiKeyHeaders, config.publicUrl),
    requestTimeoutMs: config.requestTimeoutMs,
    apiKeyHeaders: config.apiKeyHeaders,
    metrics: yield* Metrics,
    ...(Option.isSome(config.metricsToken) ? { metricsToken: config.metricsToken.value } : {}),
  });
  yield* heartbeat(nc, "gateway");
  yield* Effect.logInfo(`gateway listening on http://localhost:${config.port}`);
});
