import type { NatsConnection } from "@nats-io/transport-node";
import { Context } from "effect";
import { Counter, collectDefaultMetrics, Gauge, Histogram, type Metric, Registry } from "prom-client";
import type { ChainRpc } from "../chains/rpc/ChainRpc.js";
import type { FollowerStatus } from "../ingest/FollowerStatus.js";
import { makeDiscoveryMetrics } from "./discoveryMetrics.js";
import { makeRpcEndpointMetrics } from "./rpcEndpointMetrics.js";
import { makeTeamLabels } from "./teamLabels.js";

/** Hits and misses of one cache since the process started. */
export interface CacheLookups {
  readonly hits: number;
  readonly misses: number;
}

/** What this node's webhook outbox holds right now. */
export interface OutboxFigures {
  /** Deliveries waiting to be sent, first attempts and retries alike. */
  readonly queued: number;
  /** Queued deliveries that failed at least once and wait for their next attempt. */
  readonly retrying: number;
  /** Dead-lettered deliveries kept for redelivery. */
  readonly dead: number;
}

/** How one delivery attempt ended (the outbox's AttemptEnd kinds). */
export type DeliveryOutcome = "delivered" | "retry" | "deadLettered" | "gone";

const DELIVERY_OUTCOME_LABEL: Record<DeliveryOutcome, string> = {
  delivered: "delivered",
  retry: "retry_scheduled",
  deadLettered: "dead_lettered",
  gone: "gone",
};

/** Where a chain event's planning went, in seconds (the notifier, per event that could match a webhook). */
export interface NotifierPhases {
  /** Reading the event and matching it: the webhooks' deliveries or retractions, with the balances they read. */
  readonly plan: number;
  /** Until each delivery was delivered at its first attempt or stored in the outbox. */
  readonly deliveries: number;
  /** Writing the chain's block records, after which the event is acknowledged. */
  readonly records: number;
}

/** Buckets of the notifier's phases, seconds: a plan in about a millisecond, first attempts as long as receivers take. */
const NOTIFIER_PHASE_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

/**
 * Latency buckets in seconds: cached reads answer in about a millisecond, reads
 * of several chains in tens to hundreds, and the gateway gives up at
 * REQUEST_TIMEOUT_MS (10 s by default).
 */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/**
 * The process's own metrics (CPU, memory, event-loop lag, GC), collected once per process and
 * shared by the registry of every service in it: each collection starts a GC observer and an
 * event-loop monitor that nothing stops, so a process starting several services (tests do) would
 * keep one of each per service for the rest of its life.
 */
let processMetrics: ReadonlyArray<Metric> | undefined;
const processMetricsOnce = (): ReadonlyArray<Metric> => {
  if (processMetrics === undefined) {
    const registry = new Registry();
    collectDefaultMetrics({ register: registry, prefix: "svc_" });
    processMetrics = registry.getMetricsAsArray() as unknown as ReadonlyArray<Metric>;
  }
  return processMetrics;
};

/**
 * The metrics of one service process, in its own registry (a process running
 * several roles exposes them all; tests running several services in one
 * process keep them apart). Components that count events (gateway requests,
 * CU, deliveries) call the counters; components that hold state (ingest
 * followers, indexes, caches, the outbox, NATS connections) register a source
 * that the gauges read at scrape time, so nothing is computed between scrapes.
 */
export const makeMetrics = (options: { readonly teams: ReadonlyArray<string> }) => {
  const registry = new Registry();
  for (const metric of processMetricsOnce()) registry.registerMetric(metric);

  const httpRequests = new Counter({
    name: "svc_http_requests_total",
    help: "HTTP requests answered by the gateway, by route template, method and status.",
    labelNames: ["route", "method", "status"] as const,
    registers: [registry],
  });
  const httpDuration = new Histogram({
    name: "svc_http_request_duration_seconds",
    help: "Time from request to the end of the response, by route template, method and status.",
    labelNames: ["route", "method", "status"] as const,
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });

  const teamLabel = makeTeamLabels(options.teams);
  const computeUnits = new Counter({
    name: "svc_compute_units_total",
    help: "Compute units charged, by team (METRICS_TEAMS, or the first 20 teams charged; the rest are `other`) and endpoint.",
    labelNames: ["team", "endpoint"] as const,
    registers: [registry],
  });
  const apiRequests = new Counter({
    name: "svc_api_requests_total",
    help: "Requests answered by this API worker (from the gateway or straight over NATS), by endpoint and status.",
    labelNames: ["endpoint", "status"] as const,
    registers: [registry],
  });

  const connections = new Map<string, { nc: NatsConnection; connected: boolean }>();
  new Gauge({
    name: "svc_nats_connected",
    help: "1 while the connection of this NATS user is up, 0 while it is disconnected or closed.",
    labelNames: ["user"] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const [user, c] of connections) this.set({ user }, c.connected && !c.nc.isClosed() ? 1 : 0);
    },
  });
  // What each connection carried, read from the client's own counts at scrape time: per request
  // or per delivery, the broker's load follows messages more than bytes.
  const natsTraffic = (
    name: string,
    help: string,
    read: (stats: ReturnType<NatsConnection["stats"]>) => [number, number],
  ) =>
    new Counter({
      name,
      help,
      labelNames: ["user", "direction"] as const,
      registers: [registry],
      collect() {
        this.reset();
        for (const [user, c] of connections) {
          const [received, sent] = read(c.nc.stats());
          this.inc({ user, direction: "in" }, received);
          this.inc({ user, direction: "out" }, sent);
        }
      },
    });
  natsTraffic(
    "svc_nats_messages_total",
    "Messages this NATS user's connection received (in) and published (out), requests and replies included.",
    (stats) => [stats.inMsgs, stats.outMsgs],
  );
  natsTraffic(
    "svc_nats_bytes_total",
    "Payload bytes this NATS user's connection received (in) and published (out).",
    (stats) => [stats.inBytes, stats.outBytes],
  );
  const natsReconnects = new Counter({
    name: "svc_nats_reconnects_total",
    help: "Reconnections of the connection of this NATS user.",
    labelNames: ["user"] as const,
    registers: [registry],
  });
  const natsDisconnects = new Counter({
    name: "svc_nats_disconnects_total",
    help: "Losses of the connection of this NATS user.",
    labelNames: ["user"] as const,
    registers: [registry],
  });

  const followers: Array<FollowerStatus> = [];
  const chainGauge = (name: string, help: string, read: (s: FollowerStatus) => number | null) =>
    new Gauge({
      name,
      help,
      labelNames: ["chain_id", "chain"] as const,
      registers: [registry],
      collect() {
        this.reset();
        for (const status of followers) {
          const value = read(status);
          if (value !== null) this.set({ chain_id: String(status.chain_id), chain: status.name }, value);
        }
      },
    });
  chainGauge("svc_ingest_head_block", "Latest block number the chain's node reported.", (s) => s.head);
  chainGauge("svc_ingest_processed_block", "Last block published to CHAIN_EVENTS.", (s) => s.processed);
  chainGauge("svc_ingest_lag_blocks", "Blocks between the node's head and the last published.", (s) => s.lag);
  chainGauge("svc_ingest_reorgs", "Reorganisations handled since the process started.", (s) => s.reorgs);
  chainGauge("svc_ingest_rpc_errors", "RPC errors since the process started.", (s) => s.rpc_errors);
  chainGauge(
    "svc_ingest_store_full",
    "1 while CHAIN_EVENTS refuses the chain's blocks because the JetStream store is full, else 0.",
    (s) => (s.store_full === true ? 1 : 0),
  );

  const indexed = new Map<number, { name: string; block: number }>();
  new Gauge({
    name: "svc_indexed_block",
    help: "Last block this API worker applied to its indexes.",
    labelNames: ["chain_id", "chain"] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const [chainId, { name, block }] of indexed)
        this.set({ chain_id: String(chainId), chain: name }, block);
    },
  });

  const deliveries = new Counter({
    name: "svc_webhook_deliveries_total",
    help: "Webhook delivery attempts by outcome: delivered, retry_scheduled, dead_lettered, gone (410, webhook paused).",
    labelNames: ["outcome"] as const,
    registers: [registry],
  });
  const notifierPhases = new Histogram({
    name: "svc_webhook_notifier_phase_seconds",
    help: "Time the webhook notifier spent on each chain event that could match a webhook, by phase: plan, deliveries (first attempts answered or stored), records. The next event is handed out only after the three.",
    labelNames: ["phase"] as const,
    buckets: NOTIFIER_PHASE_BUCKETS,
    registers: [registry],
  });
  let outbox: (() => Promise<OutboxFigures>) | undefined;
  const outboxGauge = (name: string, help: string, read: (f: OutboxFigures) => number) =>
    new Gauge({
      name,
      help,
      registers: [registry],
      async collect() {
        if (outbox !== undefined) this.set(read(await outbox()));
      },
    });
  outboxGauge("svc_webhook_outbox_depth", "Deliveries queued in this node's outbox.", (f) => f.queued);
  outboxGauge(
    "svc_webhook_retries_scheduled",
    "Queued deliveries waiting for a retry after a failed attempt.",
    (f) => f.retrying,
  );
  outboxGauge("svc_webhook_dead_letters", "Dead-lettered deliveries kept for redelivery.", (f) => f.dead);

  const caches = new Map<string, () => CacheLookups>();
  new Counter({
    name: "svc_cache_lookups_total",
    help: "Lookups of this API worker's in-memory caches, by cache and result (hit or miss).",
    labelNames: ["cache", "result"] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const [cache, read] of caches) {
        const { hits, misses } = read();
        this.inc({ cache, result: "hit" }, hits);
        this.inc({ cache, result: "miss" }, misses);
      }
    },
  });
  new Gauge({
    name: "svc_cache_hit_ratio",
    help: "Hits over lookups of each cache since the process started (rate() of svc_cache_lookups_total gives recent ratios).",
    labelNames: ["cache"] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const [cache, read] of caches) {
        const { hits, misses } = read();
        if (hits + misses > 0) this.set({ cache }, hits / (hits + misses));
      }
    },
  });

  const watchRpc = makeRpcEndpointMetrics(registry);
  const watchDiscovery = makeDiscoveryMetrics(registry);

  return {
    registry,
    /** One gateway answer. */
    observeHttp: (route: string, method: string, status: number, seconds: number) => {
      const labels = { route, method, status: String(status) };
      httpRequests.inc(labels);
      httpDuration.observe(labels, seconds);
    },
    /** One API worker answer; its CU are charged to the team's series. */
    observeApi: (endpoint: string, status: number, charge: { team: string; cu: number } | undefined) => {
      apiRequests.inc({ endpoint, status: String(status) });
      if (charge !== undefined && charge.cu > 0)
        computeUnits.inc({ team: teamLabel(charge.team), endpoint }, charge.cu);
    },
    /** Follows a NATS connection's state for as long as it lives. */
    watchNats: (user: string, nc: NatsConnection) => {
      const entry = { nc, connected: !nc.isClosed() };
      connections.set(user, entry);
      natsReconnects.inc({ user }, 0);
      natsDisconnects.inc({ user }, 0);
      void (async () => {
        for await (const status of nc.status()) {
          if (status.type === "disconnect") {
            entry.connected = false;
            natsDisconnects.inc({ user });
          } else if (status.type === "reconnect") {
            entry.connected = true;
            natsReconnects.inc({ user });
          }
        }
      })().catch(() => undefined);
    },
    /** The ingest role's followers, read at each scrape. */
    watchFollowers: (statuses: ReadonlyArray<FollowerStatus>) => {
      followers.push(...statuses);
    },
    /** The API worker applied `block` of the chain to its indexes. */
    indexed: (chainId: number, name: string, block: number) => {
      indexed.set(chainId, { name, block });
    },
    delivery: (outcome: DeliveryOutcome) => deliveries.inc({ outcome: DELIVERY_OUTCOME_LABEL[outcome] }),
    /** The notifier planned one chain event. */
    notifierPlanned: (phases: NotifierPhases) => {
      notifierPhases.observe({ phase: "plan" }, phases.plan);
      notifierPhases.observe({ phase: "deliveries" }, phases.deliveries);
      notifierPhases.observe({ phase: "records" }, phases.records);
    },
    watchOutbox: (read: () => Promise<OutboxFigures>) => {
      outbox = read;
    },
    watchCache: (name: string, read: () => CacheLookups) => {
      caches.set(name, read);
    },
    /** The chains' RPC endpoints, read at each scrape; a chain given by several roles is counted once. */
    watchRpc: (rpcs: () => ReadonlyArray<ChainRpc>) => watchRpc(rpcs),
    /** The API worker's wallet discovery, read at each scrape. */
    watchDiscovery,
  } as const;
};

export type ServiceMetrics = ReturnType<typeof makeMetrics>;

/** The process's metrics, for the components that count or report something. */
export class Metrics extends Context.Tag("app/metrics/Metrics")<Metrics, ServiceMetrics>() {}
