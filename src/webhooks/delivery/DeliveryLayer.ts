import { Context, Effect, Layer, Option } from "effect";
import { AppConfig } from "../../AppConfig.js";
import { UsageRecorder } from "../../api/usage/UsageRecorder.js";
import { Metrics } from "../../metrics/Metrics.js";
import { Level } from "../../storage/Level.js";
import { makeHostAllowList } from "../hostAllowList.js";
import type { StoreBuckets } from "../store/StoreBuckets.js";
import * as WebhookSupervisor from "../WebhookSupervisor.js";
import { makeDispatcher } from "./Dispatcher.js";
import type { Outbox } from "./Outbox.js";
import { outboxFigures } from "./outboxFigures.js";

/** This node's delivery outbox, for operator calls (stats, redelivery). */
export class DeliveryOutbox extends Context.Tag("app/webhooks/delivery/DeliveryOutbox")<
  DeliveryOutbox,
  Outbox
>() {}

/**
 * The webhook actors with delivery wired in: the supervisor (one actor per
 * webhook, following KV) whose actors send this node's outbox through one
 * shared HTTP sender, charge delivered events to the webhook's team, and apply
 * the retry schedule of the settings. The sender's pools close with the scope.
 */
export const layer = (
  buckets: StoreBuckets,
): Layer.Layer<
  WebhookSupervisor.WebhookSupervisor | DeliveryOutbox,
  never,
  AppConfig | Level | UsageRecorder
> =>
  Layer.unwrapScoped(
    Effect.gen(function* () {
      const config = yield* AppConfig;
      const usage = yield* UsageRecorder;
      const db = yield* Level;
      const metrics = Option.getOrUndefined(yield* Effect.serviceOption(Metrics));
      metrics?.watchOutbox(() => outboxFigures(db));
      const dispatcher = makeDispatcher({
        db,
        buckets,
        allowedHosts: makeHostAllowList(config.webhookAllowedHosts),
        schedule: config.webhookRetrySchedule,
        cuPerEvent: config.webhookCuPerEvent,
        timeoutMs: config.webhookTimeoutMs,
        record: usage.record,
        ...(metrics === undefined ? {} : { onRecorded: metrics.delivery }),
      });
      yield* Effect.addFinalizer(() => Effect.promise(dispatcher.close));
      return Layer.merge(
        WebhookSupervisor.layer(buckets.webhooks, { now: () => Date.now() }, dispatcher.ports),
        Layer.succeed(DeliveryOutbox, dispatcher.outbox),
      );
    }),
  );
