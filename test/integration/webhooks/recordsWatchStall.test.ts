import type { KV } from "@nats-io/kv";
import { Context, Effect, Either, Exit, Layer, Scope } from "effect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openBucket } from "../../../src/nats/JetStreamSetup.js";
import * as WebhookSupervisor from "../../../src/webhooks/actors/WebhookSupervisor.js";
import { makeSecretSealer } from "../../../src/webhooks/secrets/secretSealing.js";
import type { StoreBuckets } from "../../../src/webhooks/store/StoreBuckets.js";
import { WebhookRecord } from "../../../src/webhooks/WebhookRecord.js";
import * as WebhookStore from "../../../src/webhooks/WebhookStore.js";
import { newWebhookId } from "../../../src/webhooks/webhookId.js";
import { startTestNats, type TestNats } from "../../support/natsServer.js";
import { eventually, TEST_WEBHOOK_SECRET_KEY } from "../../support/serviceHarness.js";
import { withSilentWatches } from "../../support/silentWatch.js";
import { addressOf } from "../../support/webhookEnv.js";
import { webhookRecord } from "../../support/webhookRecordFixture.js";

/** The supervisor's watch check in this test, ms (5 s in the service). */
const CHECK_MS = 300;

let nats: TestNats;
let buckets: StoreBuckets;

beforeAll(async () => {
  nats = await startTestNats();
  const nc = await nats.connectAs("api");
  buckets = {
    webhooks: await Effect.runPromise(openBucket(nc, "webhooks")),
    index: await Effect.runPromise(openBucket(nc, "webhook_addresses")),
    sealer: makeSecretSealer([TEST_WEBHOOK_SECRET_KEY]),
  };
});

afterAll(async () => {
  await nats?.stop();
});

const newRecord = (url: string) =>
  webhookRecord({ id: newWebhookId(), team_id: "01TEAMRECORDSWATCH00000000", name: "watched", url });

/**
 * The bucket, whose listings after the first end at once with no key and no error, as one whose
 * consumer was lost with a server can.
 */
const withCutListings = (kv: KV): KV => {
  let listed = 0;
  return new Proxy(kv, {
    get: (target, name, receiver) =>
      name === "keys"
        ? async (...args: Parameters<KV["keys"]>) => {
            const real = await target.keys(...args);
            if (listed++ === 0) return real;
            real.stop();
            return (async function* () {})() as unknown as typeof real;
          }
        : Reflect.get(target, name, receiver),
  });
};

/**
 * A supervisor as a delivering API process runs it, over the `webhooks` bucket as the api user of
 * the real nats.conf (whose grants the check needs), its first records watch silent as one stalled
 * by a lost nats-server is; until the scope closes.
 */
const startStalledSupervisor = async (
  scope: Scope.Scope,
  options: { readonly cutListings?: boolean } = {},
) => {
  const api = await nats.connectAs("api");
  const bucket = await Effect.runPromise(openBucket(api, "webhooks"));
  const silenced = withSilentWatches(options.cutListings === true ? withCutListings(bucket) : bucket, 1);
  const context = await Effect.runPromise(
    Layer.buildWithScope(
      WebhookSupervisor.layer(silenced, { now: () => Date.now() }, undefined, CHECK_MS),
      scope,
    ),
  );
  return Context.get(context, WebhookSupervisor.WebhookSupervisor);
};

describe("the webhook supervisor, with its records' watch stalled", () => {
  it("behavior: changes another process made while the watch showed nothing (a new URL, a deactivation, a deletion, a new webhook) reach the actors once the check opens the watch again", async () => {
    const store = WebhookStore.make(buckets);
    const moved = newRecord("https://old.example.com/hook");
    const paused = newRecord("https://paused.example.com/hook");
    const removed = newRecord("https://removed.example.com/hook");
    for (const [i, record] of [moved, paused, removed].entries())
      await Effect.runPromise(store.create(record, [addressOf(100 + i)], 100));

    const scope = await Effect.runPromise(Scope.make());
    try {
      const supervisor = await startStalledSupervisor(scope);
      expect(supervisor.versionOf(moved.id)?.record.url).toBe("https://old.example.com/hook");
      expect(supervisor.stateOf(paused.id)).toBe("active");
      expect(supervisor.stateOf(removed.id)).toBe("active");

      // Written through another connection, as another API process would.
      const change = (record: WebhookRecord, fields: Partial<WebhookRecord>) =>
        Effect.runPromise(
          store.modify(record.team_id, record.id, (current) =>
            Either.right(new WebhookRecord({ ...current, ...fields, updated_at: new Date().toISOString() })),
          ),
        );
      await change(moved, { url: "https://new.example.com/hook" });
      await change(paused, { active: false });
      await Effect.runPromise(store.remove(removed.team_id, removed.id));
      const added = newRecord("https://added.example.com/hook");
      await Effect.runPromise(store.create(added, [addressOf(110)], 100));

      await eventually(
        async () =>
          supervisor.versionOf(moved.id)?.record.url === "https://new.example.com/hook" &&
          supervisor.stateOf(paused.id) === "inactive" &&
          supervisor.stateOf(removed.id) === undefined &&
          supervisor.stateOf(added.id) === "active",
        10_000,
        "the changes in the supervisor's actors",
      );
      // The reopened watch follows later changes as usual.
      await change(paused, { active: true });
      await eventually(async () => supervisor.stateOf(paused.id) === "active", 5_000, "the reactivation");
    } finally {
      await Effect.runPromise(Scope.close(scope, Exit.void));
    }
  }, 60_000);

  it("behavior: an actor started from a write newer than the reopened watch is kept, though the listing did not have it yet", async () => {
    const scope = await Effect.runPromise(Scope.make());
    try {
      const supervisor = await startStalledSupervisor(scope);
      // What a create handler on this process reports of its own write; the revision lies far past
      // anything the stream holds, so no listing can have it.
      const local = newRecord("https://local.example.com/hook");
      supervisor.observe({ record: local, revision: 1_000_000 });
      // A record written elsewhere makes the stalled watch show: the check opens it again.
      const store = WebhookStore.make(buckets);
      const other = newRecord("https://other.example.com/hook");
      await Effect.runPromise(store.create(other, [addressOf(120)], 100));
      await eventually(async () => supervisor.stateOf(other.id) === "active", 10_000, "the other record");
      expect(supervisor.stateOf(local.id)).toBe("active");
    } finally {
      await Effect.runPromise(Scope.close(scope, Exit.void));
    }
  }, 60_000);
  it("failure: a listing cut short after the stall stops only the actors whose records the stream's leader finds deleted", async () => {
    const store = WebhookStore.make(buckets);
    const live = newRecord("https://live.example.com/hook");
    const gone = newRecord("https://gone.example.com/hook");
    await Effect.runPromise(store.create(live, [addressOf(130)], 100));
    await Effect.runPromise(store.create(gone, [addressOf(131)], 100));
    const scope = await Effect.runPromise(Scope.make());
    try {
      const supervisor = await startStalledSupervisor(scope, { cutListings: true });
      expect(supervisor.stateOf(live.id)).toBe("active");
      await Effect.runPromise(store.remove(gone.team_id, gone.id));
      // The deletion is the unshown message; the listing after the new watch comes back empty.
      await eventually(async () => supervisor.stateOf(gone.id) === undefined, 10_000, "the deletion");
      expect(supervisor.stateOf(live.id)).toBe("active");
      expect(supervisor.versionOf(live.id)?.record.url).toBe("https://live.example.com/hook");
    } finally {
      await Effect.runPromise(Scope.close(scope, Exit.void));
    }
  }, 60_000);
});
