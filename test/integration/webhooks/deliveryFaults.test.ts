import { jetstreamManager } from "@nats-io/jetstream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listOutboxKeys } from "../../../src/webhooks/outbox/listOutboxKeys.js";
import { webhookDeliveriesFilter } from "../../../src/webhooks/outbox/outboxBucketKeys.js";
import { startNotifierBarrier } from "../../support/notifierBarrier.js";
import { eventually } from "../../support/serviceHarness.js";
import { chainPublisher, syntheticBlock } from "../../support/syntheticBlocks.js";
import {
  addressOf,
  type Caller,
  startWebhookEnv,
  WEBHOOKS,
  type WebhookEnv,
} from "../../support/webhookEnv.js";
import { type Behaviour, ok, type Receiver, startReceiver } from "../../support/webhookReceiver.js";

let env: WebhookEnv;
let call: Caller;
let publish: ReturnType<typeof chainPublisher>;
let barrier: Awaited<ReturnType<typeof startNotifierBarrier>>;
let nextBlock = 5_000_000;
let nextWallet = 0x5000;
const receivers: Array<Receiver> = [];

beforeAll(async () => {
  env = await startWebhookEnv({
    webhookAllowHttp: true,
    webhookAllowedHosts: ["127.0.0.0/8"],
    webhookRetrySchedule: [300, 300, 300, 300],
    webhookTimeoutMs: 1_000,
  });
  call = await env.as("faults");
  publish = chainPublisher(await env.nats.connectAs("ingest"));
  barrier = await startNotifierBarrier(call, publish, () => nextBlock++);
});

afterAll(async () => {
  await barrier?.stop();
  await Promise.all(receivers.map((r) => r.stop()));
  await env?.stop();
});

/** A receiver answering `behaviour`, a transactions webhook to it for a fresh wallet, and a way to send it blocks. */
const scenario = async (behaviour: Behaviour) => {
  const receiver = await startReceiver(behaviour);
  receivers.push(receiver);
  const wallet = addressOf(nextWallet++);
  const created = await call("POST", WEBHOOKS, {
    name: "faults",
    url: receiver.url,
    type: "transactions",
    addresses: [wallet],
  });
  expect(created.status).toBe(200);
  const id = created.json.id as string;
  // The notifier's address book follows the index through a watch: wait until it holds the wallet.
  await barrier.pass();
  const send = async () => {
    const block = syntheticBlock(1, nextBlock++, wallet, addressOf(1));
    await publish.block(block);
    return { block, eventId: `1:${block.transactions[0].hash}:${wallet}` };
  };
  const eventIds = () => receiver.events().map((e) => e.event_id as string);
  const check = () => {
    expect(receiver.unverified(created.json.secret as string)).toEqual([]);
  };
  return { receiver, id, wallet, send, eventIds, check };
};

const answer =
  (status: number, headers: Record<string, string> = {}): Behaviour =>
  (_, res) => {
    res.writeHead(status, headers).end();
  };

/** Fails the first `n` requests with `fail`, then answers 200. */
const firstFail =
  (n: number, fail: Behaviour): Behaviour =>
  (request, res, index) =>
    index < n ? fail(request, res, index) : ok(request, res, index);

/** Waits until the event is in a request past the first `failing` ones (which the receiver failed on purpose). */
const arrives = async (s: Awaited<ReturnType<typeof scenario>>, eventId: string, failing = 0, ms = 10_000) =>
  eventually(
    async () =>
      s.receiver.received.length > failing &&
      s.receiver.received.slice(failing).some((r) => r.body.includes(eventId.split(":")[1]!)),
    ms,
    `event ${eventId}`,
  );

describe("webhook delivery faults", () => {
  it("error: 500 answers are retried with the same webhook-id and rising retry index", async () => {
    const s = await scenario(firstFail(2, answer(500)));
    const { eventId } = await s.send();
    await arrives(s, eventId, 2);
    const ids = new Set(s.receiver.received.map((r) => r.headers["webhook-id"]));
    expect(ids.size).toBe(1);
    expect(s.receiver.received.map((r) => r.headers["svc-webhook-retry-index"])).toEqual(["0", "1", "2"]);
    s.check();
  });

  it("behavior: a delivery to a receiver that answers at once is never written to the outbox; one whose first attempt fails is stored and retried", async () => {
    const quick = await scenario(ok);
    const failing = await scenario(firstFail(1, answer(500)));
    const toQuick = await quick.send();
    const toFailing = await failing.send();
    await arrives(quick, toQuick.eventId);
    await arrives(failing, toFailing.eventId, 1);
    const listKeys = listOutboxKeys(await jetstreamManager(await env.nats.connectAs("api")));
    expect(await listKeys(webhookDeliveriesFilter(quick.id))).toEqual([]);
    // Stored after its failed attempt, and a done marker once delivered.
    expect(await listKeys(webhookDeliveriesFilter(failing.id))).toHaveLength(1);
    expect(quick.receiver.received).toHaveLength(1);
    quick.check();
    failing.check();
  });

  it("error: a receiver that hangs, drips or resets is cut off and retried", async () => {
    const hang = await scenario(firstFail(1, () => undefined));
    const drip = await scenario(
      firstFail(1, (_, res) => {
        res.writeHead(200, { "content-length": "100000" });
        const timer = setInterval(() => res.write("x"), 50);
        res.on("close", () => clearInterval(timer));
      }),
    );
    const reset = await scenario(firstFail(1, (_, res) => res.socket?.destroy()));
    const sent = await Promise.all([hang, drip, reset].map(async (s) => ({ s, ...(await s.send()) })));
    for (const { s, eventId } of sent) {
      await arrives(s, eventId, 1);
      expect(s.receiver.received.length).toBeGreaterThanOrEqual(2);
      s.check();
    }
  });

  it("error: redirects are not followed; the Location is never requested", async () => {
    const target = await startReceiver();
    receivers.push(target);
    const s = await scenario(firstFail(2, answer(302, { location: target.url })));
    const { eventId } = await s.send();
    await arrives(s, eventId, 2);
    expect(target.received).toEqual([]);
    s.check();
  });

  it("behavior: 410 makes the webhook inactive; its queued delivery resumes on reactivation", async () => {
    const s = await scenario(firstFail(1, answer(410)));
    const { eventId } = await s.send();
    await eventually(
      async () => (await call("GET", `${WEBHOOKS}/${s.id}`)).json.active === false,
      30_000,
      "inactive",
    );
    const whileInactive = await s.send();
    await barrier.pass();
    expect(s.receiver.received).toHaveLength(1);
    expect((await call("PATCH", `${WEBHOOKS}/${s.id}`, { active: true })).status).toBe(200);
    await arrives(s, eventId, 1);
    // A webhook's deliveries go out in the order they were queued: once a later event has
    // arrived, the one sent while inactive would have come before it, had it been queued.
    const later = await s.send();
    await arrives(s, later.eventId, 1);
    // The 410 answer, the queued delivery sent again on reactivation, then the later event.
    expect(s.eventIds()).toEqual([eventId, eventId, later.eventId]);
    expect(s.eventIds()).not.toContain(whileInactive.eventId);
    s.check();
  });

  it("behavior: 429 with Retry-After waits at least that long", async () => {
    const s = await scenario(firstFail(1, answer(429, { "retry-after": "2" })));
    const { eventId } = await s.send();
    await arrives(s, eventId, 1);
    const [first, second] = s.receiver.received;
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(1_900);
    s.check();
  });

  it("behavior: a huge response body is read only up to a bound and counts as success", async () => {
    const s = await scenario((_, res) => {
      res.writeHead(200);
      res.end(Buffer.alloc(8 * 1024 * 1024, 97));
    });
    const { eventId } = await s.send();
    await arrives(s, eventId);
    // A retry of the first delivery would come before the next one (deliveries go out in order).
    const next = await s.send();
    await arrives(s, next.eventId);
    expect(s.eventIds()).toEqual([eventId, next.eventId]);
    s.check();
  });

  it("behavior: after the last retry a delivery is dead-lettered, and an admin redelivery sends it again", async () => {
    const s = await scenario(answer(503));
    const { eventId } = await s.send();
    const { callAdmin } = await import("../../../src/admin/AdminClient.js");
    const { adminRedeliverWebhook, adminWebhookDeliveries } = await import("../../../src/contracts/Admin.js");
    const { Effect } = await import("effect");
    const admin = await env.nats.connectAs("admin");
    const statsOf = () =>
      Effect.runPromise(callAdmin(admin, adminWebhookDeliveries, { webhook_ids: [s.id] }));
    await eventually(
      async () => (await statsOf()).webhooks[0]?.dead_lettered === 1,
      30_000,
      "the dead letter",
    );
    // Dead-lettered after the fifth attempt: no sixth one.
    expect(s.receiver.received).toHaveLength(5);
    s.receiver.behave(ok);
    const stats = await statsOf();
    expect(stats.webhooks[0]).toMatchObject({ failed: 5, dead_lettered: 1, delivered: 0, last_status: 503 });
    expect(stats.webhooks[0]!.recent_attempts[0]).toMatchObject({ outcome: "dead_lettered", status: 503 });
    const requeued = await Effect.runPromise(callAdmin(admin, adminRedeliverWebhook, { webhook_id: s.id }));
    expect(requeued.requeued).toBe(1);
    await arrives(s, eventId, 5);
    expect(new Set(s.receiver.received.map((r) => r.headers["webhook-id"])).size).toBe(1);
    s.check();
  });

  it("behavior: the same block published twice is delivered once", async () => {
    const s = await scenario(ok);
    const block = syntheticBlock(1, nextBlock++, s.wallet, addressOf(1));
    await publish.block(block);
    await publish.block(block, `again:${block.hash}`);
    const eventId = `1:${block.transactions[0].hash}:${s.wallet}`;
    await arrives(s, eventId);
    // A second delivery of the block would come before the next block's (deliveries go out in order).
    const next = await s.send();
    await arrives(s, next.eventId);
    expect(s.eventIds()).toEqual([eventId, next.eventId]);
    s.check();
  });

  it("behavior: events of a block reorganised away are delivered again with removed: true", async () => {
    const s = await scenario(ok);
    const ancestor = syntheticBlock(1, nextBlock++, addressOf(2), addressOf(3));
    const orphan = syntheticBlock(1, nextBlock++, s.wallet, addressOf(1));
    await publish.block(ancestor);
    await publish.block(orphan);
    const eventId = `1:${orphan.transactions[0].hash}:${s.wallet}`;
    await arrives(s, eventId);
    await publish.reorg(1, ancestor, [orphan]);
    await publish.block(syntheticBlock(1, orphan.number, addressOf(2), addressOf(3), "b"));
    await eventually(
      async () => s.receiver.events().some((e) => e.removed === true),
      30_000,
      "removed event",
    );
    const [added, removed] = s.receiver.events();
    expect(added).toMatchObject({ event_id: eventId, removed: false });
    expect(removed).toMatchObject({ event_id: eventId, removed: true });
    expect(removed!.webhook_id).not.toBe(added!.webhook_id);
    s.check();
  });
});
