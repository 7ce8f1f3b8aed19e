import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { type NatsConnection, headers as natsHeaders } from "@nats-io/transport-node";
import { Effect } from "effect";
import type { AnyEndpoint } from "../contracts/Endpoint.js";
import { FORWARDED_REPLY_HEADERS, HEADER, type RequestEnvelope } from "../contracts/Envelope.js";
import type { ServiceMetrics } from "../metrics/Metrics.js";
import { inboxPrefix } from "../nats/NatsUser.js";
import { type MuxReply, RequestFailed, RequestMux } from "../nats/RequestMux.js";
import { findApiKey } from "./apiKeyHeaders.js";
import { COMMON_HEADERS, corsPreflightHeaders, errorAnswer, rawError, sendError } from "./httpResponses.js";
import { answerThenLinger, isLingering } from "./lingeringClose.js";
import { parseJsonBody } from "./parseJsonBody.js";
import { parseQuery } from "./parseQuery.js";
import { MAX_BODY_BYTES, readBody } from "./readBody.js";
import { routeLabels } from "./routeLabels.js";
import { makeRouter, type RouteMatch } from "./router.js";
import { serveGatewayMetrics } from "./serveGatewayMetrics.js";

export interface GatewayOptions {
  readonly port: number;
  readonly host?: string;
  readonly endpoints: ReadonlyArray<AnyEndpoint>;
  /** The OpenAPI document served at GET /openapi.json. */
  readonly openApi: unknown;
  /** How long to wait for a worker's reply before answering 504, ms. */
  readonly requestTimeoutMs: number;
  /** How long shutdown waits for in-flight requests, ms. */
  readonly drainTimeoutMs?: number;
  /** Extra header names (lower case) that may carry the API key besides X-Svc-Api-Key (API_KEY_HEADERS). */
  readonly apiKeyHeaders?: ReadonlyArray<string>;
  /** Where requests are counted and timed, and what GET /metrics serves. */
  readonly metrics?: ServiceMetrics;
  /** Bearer token that opens GET /metrics on this port (METRICS_TOKEN); unset: not served here. */
  readonly metricsToken?: string;
}

const MAX_URL_LENGTH = 8192;
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const METHODS_WITH_BODY = new Set(["POST", "PUT", "PATCH"]);
const encoder = new TextEncoder();

/** A request the gateway answers itself, with the error it gives. */
interface Refusal {
  readonly status: number;
  readonly code: string;
  readonly message: string;
  readonly headers?: Readonly<Record<string, string>>;
}

/** Why a matched path cannot be forwarded: an unknown route, a bad path encoding, a wrong method. */
const routeRefusal = (
  match: Exclude<RouteMatch, { readonly kind: "found" }>,
  method: string,
  path: string,
): Refusal => {
  switch (match.kind) {
    case "notFound":
      return { status: 404, code: "NOT_FOUND", message: `No route for ${path.slice(0, 200)}.` };
    case "badEncoding":
      return {
        status: 400,
        code: "INVALID_PATH",
        message: "The request path is not valid percent-encoded UTF-8.",
      };
    case "wrongMethod":
      return {
        status: 405,
        code: "METHOD_NOT_ALLOWED",
        message: `${method.slice(0, 16)} is not allowed here; use ${match.allow.join(", ")}.`,
        headers: { allow: match.allow.join(", ") },
      };
  }
};

/** How a request the bus could not carry is answered: no worker, no answer in time, no bus. */
const busRefusal = (error: unknown, timeoutMs: number): Refusal => {
  const reason = error instanceof RequestFailed ? error.reason : "Closed";
  switch (reason) {
    case "NoResponders":
      return {
        status: 503,
        code: "NO_RESPONDER",
        message: "No worker is serving this endpoint right now; retry shortly.",
      };
    case "Timeout":
      return { status: 504, code: "UPSTREAM_TIMEOUT", message: `No worker answered within ${timeoutMs} ms.` };
    case "Closed":
      return {
        status: 503,
        code: "BUS_UNAVAILABLE",
        message: "The message bus is unavailable; retry shortly.",
      };
  }
};

const refuse = (res: ServerResponse, requestId: string, refusal: Refusal) =>
  sendError(res, requestId, refusal.status, refusal.code, refusal.message, refusal.headers);

/** A worker's reply as the HTTP response: its status (502 when it is not one), body and forwarded headers. */
const answerReply = (res: ServerResponse, requestId: string, reply: MuxReply) => {
  const status = Number(reply.headers?.get(HEADER.status) || "200");
  const out: Record<string, string | number> = {
    ...COMMON_HEADERS,
    "x-request-id": requestId,
    "content-length": reply.data.length,
  };
  for (const [natsName, httpName] of FORWARDED_REPLY_HEADERS) {
    const value = reply.headers?.get(natsName);
    if (value) out[httpName] = value;
  }
  res.writeHead(Number.isInteger(status) && status >= 100 && status < 600 ? status : 502, out);
  res.end(reply.data);
};

/**
 * The request's JSON body for the methods that carry one (undefined for the others, whose body is
 * drained), or "answered" when the request was refused (too large, not JSON) or went away.
 */
const readEnvelopeBody = async (
  req: IncomingMessage,
  res: ServerResponse,
  method: string,
  requestId: string,
): Promise<{ readonly body: unknown } | "answered"> => {
  if (!METHODS_WITH_BODY.has(method)) {
    req.resume();
    return { body: undefined };
  }
  const read = await readBody(req);
  if (read.kind === "aborted") return "answered";
  if (read.kind === "tooLarge") {
    answerThenLinger(
      req,
      res,
      413,
      errorAnswer(requestId, "PAYLOAD_TOO_LARGE", `The request body is larger than ${MAX_BODY_BYTES} bytes.`),
    );
    return "answered";
  }
  const parsed = parseJsonBody(read.bytes, req.headers["content-type"]);
  if (parsed.kind === "invalid") {
    sendError(res, requestId, parsed.status, parsed.code, parsed.message);
    return "answered";
  }
  return { body: parsed.body };
};

/**
 * The HTTP edge: matches the route, turns the request into a NATS request on the
 * endpoint's subject (params, query, JSON body, key and request id), and turns
 * the reply back into HTTP. It makes no business decision; it only refuses what
 * cannot be forwarded (unknown route, bad method, oversized or malformed body).
 */
export const makeGatewayHandler = (mux: RequestMux, options: GatewayOptions) => {
  const route = makeRouter(options.endpoints);
  const openApiBody = JSON.stringify(options.openApi);
  const keyHeaders = options.apiKeyHeaders ?? [];
  const preflightHeaders = corsPreflightHeaders(keyHeaders);

  /**
   * The routes the gateway answers itself (CORS preflight, metrics, the OpenAPI document): false
   * when the request is not one of them, else what answering it returns (the metrics' promise).
   */
  const servedHere = (
    req: IncomingMessage,
    res: ServerResponse,
    method: string,
    path: string,
    requestId: string,
  ) => {
    if (method === "OPTIONS") {
      routeLabels.set(res, "preflight");
      res.writeHead(204, { ...preflightHeaders, "x-request-id": requestId });
      res.end();
      return true;
    }
    if (path === "/metrics" && method === "GET") {
      routeLabels.set(res, "/metrics");
      return serveGatewayMetrics(req, res, requestId, options.metrics, options.metricsToken);
    }
    if (path === "/openapi.json" && method === "GET") {
      routeLabels.set(res, "/openapi.json");
      res.writeHead(200, {
        ...COMMON_HEADERS,
        "content-type": "application/json",
        "x-request-id": requestId,
      });
      res.end(openApiBody);
      return true;
    }
    return false;
  };

  return async (req: IncomingMessage, res: ServerResponse) => {
    const given = req.headers["x-request-id"];
    const requestId = typeof given === "string" && REQUEST_ID.test(given) ? given : randomUUID();
    const url = req.url ?? "/";
    if (url.length > MAX_URL_LENGTH)
      return refuse(res, requestId, {
        status: 414,
        code: "URI_TOO_LONG",
        message: `The request URL is longer than ${MAX_URL_LENGTH} characters.`,
      });
    const queryStart = url.indexOf("?");
    const path = queryStart === -1 ? url : url.slice(0, queryStart);
    const method = req.method === "HEAD" ? "GET" : (req.method ?? "GET");
    const served = servedHere(req, res, method, path, requestId);
    if (served !== false) return served;

    const match = route(method, path);
    if (match.kind !== "found") return refuse(res, requestId, routeRefusal(match, method, path));
    routeLabels.set(res, match.endpoint.path);
    const query = parseQuery(queryStart === -1 ? "" : url.slice(queryStart + 1));
    if (query.kind === "invalid") return sendError(res, requestId, 400, query.code, query.message);
    const key = findApiKey(req.headers, keyHeaders);
    if (key.kind === "conflict")
      return refuse(res, requestId, {
        status: 400,
        code: "CONFLICTING_API_KEYS",
        message: `The API key is given in ${key.names.join(" and ")} with different values; send it once.`,
      });
    const read = await readEnvelopeBody(req, res, method, requestId);
    if (read === "answered") return;

    const envelope: RequestEnvelope = {
      params: match.params,
      query: query.query,
      ...(read.body === undefined ? {} : { body: read.body }),
    };
    const h = natsHeaders();
    h.set(HEADER.requestId, requestId);
    // Workers read the key only from this NATS header, whichever HTTP header carried it.
    if (key.kind === "key") h.set(HEADER.apiKey, key.key.slice(0, 256));
    const ifNoneMatch = req.headers["if-none-match"];
    if (typeof ifNoneMatch === "string") h.set(HEADER.ifNoneMatch, ifNoneMatch.slice(0, 256));

    // Encoded before the bus call so that only bus failures are reported as such below
    // (the body's depth is bounded, so this cannot overflow the stack).
    const data = encoder.encode(JSON.stringify(envelope));
    try {
      answerReply(
        res,
        requestId,
        await mux.request(match.endpoint.subject, data, h, options.requestTimeoutMs),
      );
    } catch (error) {
      refuse(res, requestId, busRefusal(error, options.requestTimeoutMs));
    }
  };
};

/**
 * Counts and times the request once its response is sent, under the route
 * template it matched: paths clients choose (addresses, ids, unknown routes)
 * must not become label values, or the series would grow without end.
 * It waits for "close", not "finish": an answer written while the body was still
 * arriving (413) often ends with the client closing the connection, never finishing.
 */
const observe = (metrics: ServiceMetrics, req: IncomingMessage, res: ServerResponse) => {
  const started = process.hrtime.bigint();
  res.once("close", () => {
    if (!res.headersSent) return;
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const method = req.method !== undefined && KNOWN_METHODS.has(req.method) ? req.method : "other";
    metrics.observeHttp(routeLabels.get(res) ?? "unmatched", method, res.statusCode, seconds);
  });
};

const KNOWN_METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

/** Why the gateway could not listen, in the operator's terms: the setting to change. */
const listenError = (error: NodeJS.ErrnoException, port: number) =>
  error.code === "EADDRINUSE"
    ? new Error(`Port ${port} is already in use by another process: stop it, or set PORT to a free port.`)
    : error.code === "EACCES"
      ? new Error(`Port ${port} may not be opened by this user: set PORT to 1024 or above.`)
      : error;

/**
 * Runs the gateway on `options.port` for the life of the scope. On close it stops
 * accepting connections, lets in-flight requests finish (up to the drain
 * timeout), then closes idle keep-alive connections.
 */
export const runGateway = (nc: NatsConnection, options: GatewayOptions) =>
  Effect.acquireRelease(
    Effect.async<{ server: Server; inFlight: { count: number }; mux: RequestMux }, Error>((resume) => {
      const mux = new RequestMux(nc, inboxPrefix("gateway"));
      const handler = makeGatewayHandler(mux, options);
      const inFlight = { count: 0 };
      const server = createServer({ keepAliveTimeout: 65_000, requestTimeout: 60_000 }, (req, res) => {
        inFlight.count++;
        res.once("close", () => inFlight.count--);
        if (options.metrics !== undefined) observe(options.metrics, req, res);
        handler(req, res).catch(() => sendError(res, "unknown", 500, "INTERNAL_ERROR", "Internal error."));
      });
      // Node's parser rejects malformed requests (control characters in headers, bad
      // framing) before our handler runs; answer those with a JSON 400 too.
      server.on("clientError", (error: NodeJS.ErrnoException, socket) => {
        // A 413 already written on this socket is its answer: a second one would be garbage after it.
        if (!socket.writable || isLingering(socket)) return socket.destroy();
        if (error.code === "HPE_HEADER_OVERFLOW") {
          return socket.end(
            rawError(
              "431 Request Header Fields Too Large",
              "HEADERS_TOO_LARGE",
              "The request head (its URL and headers together) is larger than 16 KB.",
            ),
          );
        }
        socket.end(rawError("400 Bad Request", "BAD_HTTP_REQUEST", "The HTTP request is malformed."));
      });
      server.once("error", (error: NodeJS.ErrnoException) => {
        mux.close();
        resume(Effect.fail(listenError(error, options.port)));
      });
      server.listen(options.port, options.host ?? "0.0.0.0", () =>
        resume(Effect.succeed({ server, inFlight, mux })),
      );
    }),
    ({ server, inFlight, mux }) =>
      Effect.promise(async () => {
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        const deadline = Date.now() + (options.drainTimeoutMs ?? 10_000);
        while (inFlight.count > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
        server.closeAllConnections();
        await closed;
        mux.close();
      }),
  );
