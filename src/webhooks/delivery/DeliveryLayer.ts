import { hostname } from "node:os";
import type { JetStreamManager } from "@nats-io/jetstream";
import type { KV } from "@nats-io/kv";
import type { NatsConnection } from "@nats-io/transport-node";
import { Context, Effect, Layer, Option } from "effect";
import { kvLeaseStore } from "../../ingest/lease/LeaseStore.js";
import { promiseLog } from "../../lib/promiseLog.js";
import { Metrics } from "../../metrics/Metrics.js";
import { bucketStream } from "../../nats/JetStreamSetup.js";
import { inboxPrefix } from "../../nats/NatsUser.js";
import { RequestMux } from "../../nats/RequestMux.js";
import { streamTail } from "../../nats/streamTail.js";
import { WATCH_CHECK_MS } from "../../nats/WatchProgress.js";
import { LIVE_FOR_MS, Presence } from "../../presence/Presence.js";
import { Level } from "../../storage/Level.js";
import { UsageRecorder } from "../../usage/UsageRecorder.js";
import * as WebhookSupervisor from "../actors/WebhookSupervisor.js";
import { migrateLocalOutbox } from "../migrations/migrateLocalOutbox.js";
import { listOutboxKeys } from "../outbox/listOutboxKeys.js";
import { makeOutbox, type Outbox } from "../outbox/Outbox.js";
import { OwnedPartitions } from "../outbox/OwnedPartitions.js";
import { PARTITIONS } from "../outbox/outboxBucketKeys.js";
import { muxOutboxWrites } from "../outbox/outboxWrites.js";
import { bucketSource, ownPartitions } from "../outbox/ownPartitions.js";
import type { StoreBuckets } from "../store/StoreBuckets.js";
import { makeHostAllowList } from "../targets/hostAllowList.js";
import type { WebhookServiceSettings } from "../WebhookServiceSettings.js";
import { makeDispatcher } from "./Dispatcher.js";

/** The replicated delivery outbox, for the notifier and operator calls (stats, redelivery). */
export class DeliveryOutbox extends Context.Tag("app/webhooks/delivery/DeliveryOutbox")<
  DeliveryOutbox,
  Outbox
>() {}

/**
 * The webhook actors with delivery wired in: the supervisor (one actor per
 * webhook, following KV) whose actors send the deliveries of the outbox
 * partitions this process owns through one shared HTTP sender, charge
 * delivered events to the webhook's team, and apply the retry schedule of the
 * settings. The sender's pools close with the scope. Partitions are owned
 * once `runOutboxOwnership` runs.
 */
export const layer = (
  buckets: StoreBuckets,
  outboxBucket: KV,
  jsm: JetStreamManager,
  /** The api role's connection (the outbox's delivery writes use its inbox). */
  nc: NatsConnection,
  settings: WebhookServiceSettings,
): Layer.Layer<WebhookSupervisor.WebhookSupervisor | DeliveryOutbox, never, UsageRecorder | Level> =>
  Layer.unwrapScoped(
    Effect.gen(function* () {
      const usage = yield* UsageRecorder;
      const metrics = Option.getOrUndefined(yield* Effect.serviceOption(Metrics));
      // The writes of each delivery go through one inbox of this process's own (see outboxWrites.ts).
      const mux = new RequestMux(nc, inboxPrefix("api"));
      yield* Effect.addFinalizer(() => Effect.sync(() => mux.close()));
      const log = yield* promiseLog;
      const outbox = makeOutbox({
        kv: outboxBucket,
        listKeys: listOutboxKeys(jsm),
        owned: new OwnedPartitions(),
        ...(metrics === undefined ? {} : { onRecorded: metrics.delivery }),
        writes: muxOutboxWrites(outboxBucket, mux, "webhook_outbox"),
        log,
      });
      yield* migrateLocalOutbox(yield* Level, outbox).pipe(
        Effect.catchAll((error) =>
          Effect.logWarning(
            `this node's old outbox could not be moved yet (${String(error)}); retried at the next start`,
          ),
        ),
      );
      metrics?.watchOutbox(outbox.figures);
      // Stats changes still held are written on the way out (a crash loses at most STATS_FLUSH_MS of them).
      yield* Effect.addFinalizer(() =>
        Effect.promise(() => outbox.flushStats().catch(() => undefined)).pipe(
          Effect.timeout("2 seconds"),
          Effect.ignore,
        ),
      );
      const dispatcher = makeDispatcher({
        outbox,
        buckets,
        allowedHosts: makeHostAllowList(settings.allowedHosts),
        schedule: settings.retrySchedule,
        cuPerEvent: settings.cuPerEvent,
        timeoutMs: settings.timeoutMs,
        record: usage.record,
        log,
      });
      yield* Effect.addFinalizer(() => Effect.promise(dispatcher.close));
      return Layer.merge(
        WebhookSupervisor.layer(
          buckets.webhooks,
          { now: () => Date.now() },
          dispatcher.ports,
          WATCH_CHECK_MS,
        ),
        Layer.succeed(DeliveryOutbox, outbox),
      );
    }),
  );

/**
 * Takes part in owning the outbox's partitions until the scope closes: up to
 * a fair share of them (PARTITIONS over the live API processes), any number
 * while a dead process's leases expire. Woken actors load their queue.
 */
export const runOutboxOwnership = (
  outboxBucket: KV,
  jsm: JetStreamManager,
  settings: WebhookServiceSettings,
) =>
  Effect.gen(function* () {
    const outbox = yield* DeliveryOutbox;
    const supervisor = yield* WebhookSupervisor.WebhookSupervisor;
    const presence = yield* Presence;
    yield* ownPartitions(
      {
        source: bucketSource(
          outboxBucket,
          listOutboxKeys(jsm),
          async (key) => {
            await jsm.streams.purge(bucketStream("webhook_outbox"), { filter: `$KV.webhook_outbox.${key}` });
          },
          streamTail(jsm, bucketStream("webhook_outbox"), "$KV.webhook_outbox."),
          // A watch silent about a message for a whole check (5 s by default) is taken for stalled.
          settings.leaseMs / 2,
        ),
        leases: kvLeaseStore(outboxBucket),
        owner: `${hostname()}:${process.pid}:${crypto.randomUUID().slice(0, 8)}`,
        timing: { leaseMs: settings.leaseMs },
        owned: outbox.partitions,
        share: () => Math.ceil(PARTITIONS / Math.max(1, presence.liveInstances().api ?? 1)),
        wake: supervisor.notify,
      },
      LIVE_FOR_MS + settings.leaseMs,
    );
  });
