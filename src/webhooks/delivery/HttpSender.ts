import { isIP } from "node:net";
import type { Readable } from "node:stream";
import { buildConnector, Pool } from "undici";
import type { HostAllowList } from "../targets/hostAllowList.js";
import { BlockedTargetError, guardedLookup, mayDial } from "../targets/targetGuard.js";
import { deadlineSignals } from "./deadlineSignals.js";

/** Connection set-up limit, ms. */
export const CONNECT_TIMEOUT_MS = 5_000;
/** Whole exchange limit (connect, send, headers and the bounded body), ms; attempts may run up to a second more, a tenth under 10 s (deadlineSignals.ts). */
export const TOTAL_TIMEOUT_MS = 15_000;
/** Bytes of a response body read at most; the rest is discarded with the connection. */
export const MAX_RESPONSE_BYTES = 64 * 1024;
/** Keep-alive connections per receiver origin. */
export const CONNECTIONS_PER_ORIGIN = 64;
/**
 * Receiver origins with a Pool kept; the least recently used one past this is
 * closed (it finishes what it is sending). Webhook URLs are clients' to choose
 * and change, so without a bound every origin ever used would keep its Pool.
 */
export const MAX_ORIGINS = 1_000;

/** Parsed receiver URLs kept. */
const MAX_TARGETS = 10_000;

/** What one POST came back with. */
export interface SendResult {
  /** HTTP status, or null when no response arrived (refused, reset, timeout, blocked). */
  readonly status: number | null;
  readonly headers: Readonly<Record<string, string>>;
  /** One line saying why it failed, null on a response. */
  readonly error: string | null;
  /** Wall time of the attempt, ms. */
  readonly latencyMs: number;
}

export interface HttpSenderOptions {
  readonly allowedHosts: HostAllowList;
  readonly connectTimeoutMs?: number;
  readonly totalTimeoutMs?: number;
  readonly maxOrigins?: number;
}

const headerRecord = (headers: Record<string, string | string[] | undefined>) => {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) out[name.toLowerCase()] = Array.isArray(value) ? value.join(", ") : value;
  }
  return out;
};

const describe = (error: unknown): string => {
  if (error instanceof Error) {
    const code = (error as { code?: string }).code;
    const cause = (error as { cause?: unknown }).cause;
    const inner = cause instanceof Error ? `: ${cause.message}` : "";
    return `${code === undefined ? error.name : code}: ${error.message}${inner}`.slice(0, 300);
  }
  return String(error).slice(0, 300);
};

/**
 * Reads a response body to its end, or up to MAX_RESPONSE_BYTES and then
 * drops the rest with the connection; rejects when the body fails (reset,
 * deadline). With listeners rather than an async iterator, whose set-up per
 * response showed in the profile of sending.
 */
const drainBody = (body: Readable): Promise<void> =>
  new Promise((resolve, reject) => {
    let read = 0;
    body.on("error", reject);
    body.on("end", resolve);
    body.on("data", (chunk: Buffer) => {
      read += chunk.length;
      if (read >= MAX_RESPONSE_BYTES) {
        body.destroy();
        resolve();
      }
    });
  });

/**
 * POSTs deliveries with undici: one keep-alive Pool per receiver origin,
 * redirects never followed (a 3xx is just a status), `HTTP_PROXY` ignored, a
 * total deadline over the whole exchange (so a slow-drip body cannot hold a
 * worker), at most MAX_RESPONSE_BYTES of the response read, and the SSRF guard
 * in the connector: blocked IP literals are refused before connecting, DNS
 * answers are filtered, and the connected address is checked again.
 */
export const makeHttpSender = (options: HttpSenderOptions) => {
  const pools = new Map<string, Pool>();
  const totalMs = options.totalTimeoutMs ?? TOTAL_TIMEOUT_MS;
  const deadline = deadlineSignals(totalMs);
  const base = buildConnector({
    timeout: options.connectTimeoutMs ?? CONNECT_TIMEOUT_MS,
    lookup: guardedLookup(options.allowedHosts),
  });
  const connect: buildConnector.connector = (opts, callback) => {
    const host = opts.hostname.replace(/^\[|\]$/g, "");
    if (isIP(host) !== 0 && !mayDial(options.allowedHosts, host, host))
      return callback(new BlockedTargetError(host, host), null);
    base(opts, (error, socket) => {
      if (error !== null) return callback(error, null);
      const remote = socket.remoteAddress;
      if (remote === undefined || !mayDial(options.allowedHosts, host, remote)) {
        socket.destroy();
        return callback(new BlockedTargetError(host, remote), null);
      }
      callback(null, socket);
    });
  };
  const maxOrigins = options.maxOrigins ?? MAX_ORIGINS;
  const poolFor = (origin: string) => {
    let pool = pools.get(origin);
    if (pool === undefined) {
      pool = new Pool(origin, {
        connect,
        connections: CONNECTIONS_PER_ORIGIN,
        keepAliveTimeout: 30_000,
        headersTimeout: totalMs,
        bodyTimeout: totalMs,
      });
    }
    // Re-inserted, so the Map's order is least recently used first.
    pools.delete(origin);
    pools.set(origin, pool);
    if (pools.size > maxOrigins) {
      const [oldest, idle] = pools.entries().next().value as [string, Pool];
      pools.delete(oldest);
      void idle.close().catch(() => undefined);
    }
    return pool;
  };

  /** Receiver URLs parsed once each (a parse per attempt was a visible share of its CPU); cleared when it grows past MAX_TARGETS. */
  const targets = new Map<string, { readonly origin: string; readonly path: string }>();
  const targetOf = (url: string) => {
    let target = targets.get(url);
    if (target === undefined) {
      const parsed = new URL(url);
      target = { origin: parsed.origin, path: `${parsed.pathname}${parsed.search}` };
      if (targets.size >= MAX_TARGETS) targets.clear();
      targets.set(url, target);
    }
    return target;
  };

  const post = async (url: string, headers: Record<string, string>, body: string): Promise<SendResult> => {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    try {
      const target = targetOf(url);
      const response = await poolFor(target.origin).request({
        path: target.path,
        method: "POST",
        headers,
        body,
        signal: deadline(),
      });
      await drainBody(response.body);
      return {
        status: response.statusCode,
        headers: headerRecord(response.headers),
        error: null,
        latencyMs: elapsed(),
      };
    } catch (error) {
      return { status: null, headers: {}, error: describe(error), latencyMs: elapsed() };
    }
  };

  const close = () =>
    Promise.allSettled([...pools.values()].map((pool) => pool.destroy())).then(() => undefined);
  /** Receiver origins with a Pool now (at most `maxOrigins`). */
  const origins = () => pools.size;
  return { post, close, origins } as const;
};

export type HttpSender = ReturnType<typeof makeHttpSender>;
