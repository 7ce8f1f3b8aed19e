import { createServer, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { freePort } from "../../src/lib/freePort.js";
import { type ProxyStats, StatsRecorder } from "./providerProxy/proxyStats.js";
import { RateLimiter } from "./providerProxy/rateLimiter.js";
import { type HttpReply, serveRequest } from "./providerProxy/serveRequest.js";
import {
  applyChanges,
  type ProviderProxyOptions,
  type ProxyChanges,
  resolveSettings,
  type Settings,
} from "./providerProxy/settings.js";
import { Upstream } from "./providerProxy/upstream.js";

export type { ProxyStats } from "./providerProxy/proxyStats.js";
export type { ProviderProxyOptions, ProviderStyle, ProxyChanges } from "./providerProxy/settings.js";

export interface ProviderProxy {
  readonly url: string;
  /** Changes behaviour at run time; a key given as undefined returns to the style's default. */
  readonly set: (changes: ProxyChanges) => void;
  /** Accepts connections but answers nothing (a hung node) until `thaw`, which answers what waited. */
  readonly freeze: () => void;
  readonly thaw: () => void;
  /** Stops listening and cuts open connections: clients get "connection refused" … */
  readonly down: () => Promise<void>;
  /** … until it listens again on the same port. */
  readonly up: () => Promise<void>;
  readonly stats: () => ProxyStats;
  readonly resetStats: () => void;
  readonly stop: () => Promise<void>;
}

const sameRate = (a: Settings["rateLimit"], b: Settings["rateLimit"]): boolean =>
  a?.rps === b?.rps && a?.burst === b?.burst;

const write = (res: ServerResponse, reply: HttpReply): void => {
  if (res.destroyed || res.writableEnded) return;
  res.writeHead(reply.status, { ...reply.headers, "content-length": Buffer.byteLength(reply.body) });
  res.end(reply.body);
};

/**
 * Starts a JSON-RPC proxy in front of an anvil that refuses requests the way a chosen node or provider
 * does: its caps, its error texts and codes, its HTTP statuses, its rate limiting, a lagging head,
 * pruned history, a hung or a stopped node. The texts and their sources are in the providerProxy/
 * files named after what they refuse.
 */
export const startProviderProxy = async (options: ProviderProxyOptions): Promise<ProviderProxy> => {
  const { target, ...initial } = options;
  let current = initial;
  let settings = resolveSettings(current);
  const limiterFor = (rate: Settings["rateLimit"]) =>
    rate === undefined ? undefined : new RateLimiter(rate.rps, rate.burst);
  let limiter = limiterFor(settings.rateLimit);
  const stats = new StatsRecorder();
  const upstream = new Upstream(target, () => stats.upstreamCall());

  let frozen = false;
  const waiting: Array<() => void> = [];
  const sockets = new Set<Socket>();

  const respond = async (body: string, res: ServerResponse): Promise<void> => {
    const context = { settings, upstream, limiter, stats };
    try {
      write(res, await serveRequest(body, context));
    } catch {
      write(res, { status: 502, headers: { "content-type": "text/plain" }, body: "upstream unreachable\n" });
    }
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("error", () => res.destroy());
    req.on("end", () => {
      const run = () => void respond(Buffer.concat(chunks).toString("utf8"), res);
      if (frozen) waiting.push(run);
      else run();
    });
  });
  // Clients keep connections open across calls; so does a real node.
  server.keepAliveTimeout = 60_000;
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });

  const port = await freePort();
  const listen = () => new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  await listen();

  const down = async (): Promise<void> => {
    if (!server.listening) return;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const socket of sockets) socket.destroy();
    waiting.length = 0;
    await closed;
  };

  return {
    url: `http://127.0.0.1:${port}`,
    set: (changes) => {
      const next = applyChanges(current, changes);
      const nextSettings = resolveSettings(next);
      if (!sameRate(nextSettings.rateLimit, settings.rateLimit)) limiter = limiterFor(nextSettings.rateLimit);
      current = next;
      settings = nextSettings;
    },
    freeze: () => {
      frozen = true;
    },
    thaw: () => {
      frozen = false;
      for (const run of waiting.splice(0)) run();
    },
    down,
    up: async () => {
      if (!server.listening) await listen();
    },
    stats: () => stats.snapshot(),
    resetStats: () => stats.reset(),
    stop: async () => {
      await down();
      await upstream.close();
    },
  };
};
