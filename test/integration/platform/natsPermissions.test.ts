import { AckPolicy, DeliverPolicy, jetstream, jetstreamManager } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import { Effect } from "effect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openBucket } from "../../../src/nats/JetStreamSetup.js";
import { NATS_USERS, type NatsUser } from "../../../src/nats/NatsUser.js";
import { FORBIDDEN_ACTIONS, SEEDED } from "../../support/forbiddenNatsActions.js";
import type { Outcome } from "../../support/natsAttempts.js";
import { startTestNats, type TestNats } from "../../support/natsServer.js";

/**
 * With the repository's nats.conf (its users and permissions) and the streams
 * and buckets provisioned as the service does, every role tries what it must
 * not do, and the server must refuse each. The figure printed at the end is
 * "refused of tried".
 */
let nats: TestNats;
const results: Array<{ readonly user: NatsUser; readonly what: string; readonly outcome: Outcome }> = [];

const seed = async (api: NatsConnection, admin: NatsConnection) => {
  const webhooks = await Effect.runPromise(openBucket(api, "webhooks"));
  await webhooks.put(
    SEEDED.webhook,
    JSON.stringify({ secrets: { current: "whsec_c2VlZGVk", previous: null } }),
  );
  await (await Effect.runPromise(openBucket(api, "settings"))).put(SEEDED.setting, '"seeded"');
  await (await Effect.runPromise(openBucket(admin, "keys"))).put(SEEDED.key, "{}");
  await (await Effect.runPromise(openBucket(api, "webhook_outbox"))).put(
    SEEDED.delivery,
    '{"owner":"seeded"}',
  );
  // The consumers other users try to take over exist, as in a running service.
  const jsm = await jetstreamManager(api);
  await jsm.consumers.add("CHAIN_EVENTS", {
    durable_name: "webhook-notifier",
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.New,
  });
  await jsm.consumers.add("USAGE", { durable_name: "usage-aggregator", ack_policy: AckPolicy.Explicit });
  const ingest = await nats.connectAs("ingest");
  await jetstream(ingest).publish("chain.1.block", "{}", { msgID: "seed" });
  await (await Effect.runPromise(openBucket(ingest, "chain_leases"))).put(SEEDED.lease, '{"owner":"seeded"}');
};

beforeAll(async () => {
  nats = await startTestNats();
  const connections = new Map<NatsUser, NatsConnection>();
  for (const user of NATS_USERS) connections.set(user, await nats.connectAs(user));
  await seed(connections.get("api")!, connections.get("admin")!);
  for (const action of FORBIDDEN_ACTIONS) {
    const outcome = await action.attempt(connections.get(action.user)!);
    results.push({ user: action.user, what: action.what, outcome });
  }
});

afterAll(async () => {
  await nats?.stop();
});

const notRefused = (user: NatsUser) =>
  results
    .filter((r) => r.user === user && !r.outcome.refused)
    .map((r) => `${r.what}: ${r.outcome.refused ? "" : r.outcome.detail}`);

describe("NATS permissions of nats.conf: forbidden actions", () => {
  it.each(NATS_USERS)("error: every forbidden action of the %s user is refused by the server", (user) => {
    expect(results.filter((r) => r.user === user).length).toBeGreaterThan(10);
    expect(notRefused(user)).toEqual([]);
  });

  it("error: the figure, over every user", () => {
    const refused = results.filter((r) => r.outcome.refused).length;
    const perUser = NATS_USERS.map((user) => {
      const mine = results.filter((r) => r.user === user);
      return `${user} ${mine.filter((r) => r.outcome.refused).length}/${mine.length}`;
    });
    process.stdout.write(
      `${refused} of ${results.length} forbidden actions refused (${perUser.join(", ")})\n`,
    );
    expect(refused).toBe(results.length);
  });
});
