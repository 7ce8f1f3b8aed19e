import type { KV } from "@nats-io/kv";
import { Context, Effect, Either, Exit, Layer, Scope } from "effect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openBucket } from "../../../src/nats/JetStreamSetup.js";
import * as WebhookSupervisor from "../../../src/webhooks/actors/WebhookSupervisor.js";
import { makeSecretSealer } from "../../../src/webhooks/secrets/secretSealing.js";
import { freshSecrets } from "../../../src/webhooks/secrets/signingSecret.js";
import type { StoreBuckets } from "../../../src/webhooks/store/StoreBuckets.js";
import { WebhookRecord } from "../../../src/webhooks/WebhookRecord.js";
import * as WebhookStore from "../../../src/webhooks/WebhookStore.js";
import { newWebhookId } from "../../../src/webhooks/webhookId.js";
import { startTestNats, type TestNats } from "../../support/natsServer.js";
import { eventually, TEST_WEBHOOK_SECRET_KEY } from "../../support/serviceHarness.js";
import { addressOf } from "../../support/webhookEnv.js";

let nats: TestNats;
let buckets: StoreBuckets;
const scopes: Array<Scope.CloseableScope> = [];

beforeAll(async () => {
  nats = await startTestNats();
  const nc = await nats.connectAs("api");
  buckets = {
    webhooks: await Effect.runPromise(openBucket(nc, "webhooks")),
    sealer: makeSecretSealer([TEST_WEBHOOK_SECRET_KEY]),
  };
});

afterAll(async () => {
  for (const scope of scopes) await Effect.runPromise(Scope.close(scope, Exit.void));
  await nats?.stop();
});

/** A supervisor as one API worker would run it, until `stop`. */
const startSupervisor = async (kv: KV) => {
  const scope = await Effect.runPromise(Scope.make());
  scopes.push(scope);
  const context = await Effect.runPromise(Layer.buildWithScope(WebhookSupervisor.layer(kv), scope));
  return {
    supervisor: Context.get(context, WebhookSupervisor.WebhookSupervisor),
    stop: () => Effect.runPromise(Scope.close(scope, Exit.void)),
  };
};

const store = () => WebhookStore.make(buckets);

const newRecord = (active = true) => {
  const now = new Date().toISOString();
  return new WebhookRecord({
    id: newWebhookId(),
    team_id: "01TEAMSUPERVISOR0000000000",
    name: "supervised",
    type: "balances",
    url: "https://example.com/hook",
    active,
    created_at: now,
    updated_at: now,
    chain_ids: null,
    transaction_type: null,
    counterparty: null,
    activity_type: null,
    asset_type: null,
    token_address: null,
    secrets: freshSecrets(),
  });
};

const setActive = (record: WebhookRecord, active: boolean) =>
  Effect.runPromise(
    store().modify(record.team_id, record.id, (current) =>
      Either.right(new WebhookRecord({ ...current, active, updated_at: new Date().toISOString() })),
    ),
  );

describe("WebhookSupervisor", () => {
  it("behavior: starts an actor in the stored state for every stored webhook", async () => {
    const on = newRecord(true);
    const off = newRecord(false);
    await Effect.runPromise(store().create(on, [addressOf(1)], 100));
    await Effect.runPromise(store().create(off, [addressOf(2)], 100));
    const { supervisor, stop } = await startSupervisor(buckets.webhooks);
    expect(supervisor.stateOf(on.id)).toBe("active");
    expect(supervisor.stateOf(off.id)).toBe("inactive");
    await stop();
  });

  it("error: a first read whose listing fails is tried again, and the supervisor starts with every stored webhook", async () => {
    const record = newRecord(true);
    await Effect.runPromise(store().create(record, [addressOf(4)], 100));
    // The same bucket, whose first key listing fails as a JetStream call does while a leader is elected.
    const kv = buckets.webhooks;
    const flaky = Object.assign(Object.create(Object.getPrototypeOf(kv) as object), kv) as KV;
    let listings = 0;
    flaky.keys = (filter?: string | string[]) =>
      ++listings === 1 ? Promise.reject(new Error("TimeoutError: timeout")) : kv.keys(filter);
    const { supervisor, stop } = await startSupervisor(flaky);
    expect(listings).toBe(2);
    expect(supervisor.stateOf(record.id)).toBe("active");
    await stop();
  });

  it("behavior: a change written by one worker reaches the actors of another through the KV watch", async () => {
    const a = await startSupervisor(buckets.webhooks);
    const b = await startSupervisor(buckets.webhooks);
    const record = newRecord(true);
    const created = await Effect.runPromise(store().create(record, [addressOf(3)], 100));
    a.supervisor.observe({ record: created.value, revision: created.revision });
    expect(a.supervisor.stateOf(record.id)).toBe("active");
    await eventually(async () => b.supervisor.stateOf(record.id) === "active", 30_000, "B starts the actor");

    const paused = await setActive(record, false);
    a.supervisor.observe(paused);
    expect(a.supervisor.stateOf(record.id)).toBe("inactive");
    await eventually(async () => b.supervisor.stateOf(record.id) === "inactive", 30_000, "B sees the pause");
    expect(b.supervisor.versionOf(record.id)?.revision).toBe(paused.revision);
    // The watch's copy of a change this worker already applied is ignored (same revision).
    expect(a.supervisor.versionOf(record.id)?.revision).toBe(paused.revision);

    await setActive(record, true);
    await eventually(async () => a.supervisor.stateOf(record.id) === "active", 30_000, "A sees the resume");
    await eventually(async () => b.supervisor.stateOf(record.id) === "active", 30_000, "B sees the resume");

    await Effect.runPromise(store().remove(record.team_id, record.id));
    a.supervisor.forget(record.id);
    expect(a.supervisor.stateOf(record.id)).toBeUndefined();
    await eventually(async () => b.supervisor.stateOf(record.id) === undefined, 30_000, "B stops the actor");
    // A late copy of an old version never restarts a deleted webhook's actor.
    a.supervisor.observe({ record: paused.record, revision: paused.revision });
    expect(a.supervisor.stateOf(record.id)).toBeUndefined();
    await a.stop();
    await b.stop();
  });

  it("behavior: after a restart the new supervisor has the latest state of every webhook", async () => {
    const first = await startSupervisor(buckets.webhooks);
    const record = newRecord(true);
    await Effect.runPromise(store().create(record, [addressOf(4)], 100));
    await setActive(record, false);
    await first.stop();
    const second = await startSupervisor(buckets.webhooks);
    expect(second.supervisor.stateOf(record.id)).toBe("inactive");
    expect(second.supervisor.versionOf(record.id)?.record.active).toBe(false);
    await second.stop();
  });
});
