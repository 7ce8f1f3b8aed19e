import { AckPolicy, DeliverPolicy, jetstream, jetstreamManager } from "@nats-io/jetstream";
import type { KV } from "@nats-io/kv";
import { headers, type NatsConnection } from "@nats-io/transport-node";
import { Effect } from "effect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN_CHANGE_SUBJECTS } from "../../../src/contracts/Admin.js";
import {
  awaitStream,
  BUCKETS,
  type BucketName,
  managerOf,
  openBucket,
} from "../../../src/nats/JetStreamSetup.js";
import { inboxPrefix, NATS_USERS, type NatsUser } from "../../../src/nats/NatsUser.js";
import { provisionJetStream } from "../../../src/nats/provisionJetStream.js";
import { RequestMux } from "../../../src/nats/RequestMux.js";
import { startTestNats, type TestNats } from "../../support/natsServer.js";
import { eventually } from "../../support/serviceHarness.js";

/**
 * The other half of the permission tests: with the real nats.conf, each role
 * can still do everything its code does, through the same nats.js calls
 * (binds, direct gets, watches, ordered and durable consumers, acks, message
 * ids, request/reply under its own inbox prefix).
 */
let nats: TestNats;
const nc = new Map<NatsUser, NatsConnection>();
const as = (user: NatsUser) => nc.get(user)!;
const bucket = (user: NatsUser, name: BucketName) => Effect.runPromise(openBucket(as(user), name));

/** The first value a watch of `kv` delivers for `key`. */
const watched = async (kv: KV, key: string) => {
  const watch = await kv.watch({ key });
  for await (const entry of watch) {
    watch.stop();
    return entry.string();
  }
  return undefined;
};

beforeAll(async () => {
  nats = await startTestNats();
  for (const user of NATS_USERS) nc.set(user, await nats.connectAs(user));
});

afterAll(async () => {
  await nats?.stop();
});

describe("NATS permissions of nats.conf: what each role does still works", () => {
  it("behavior: the gateway sends requests that api workers answer, and beats in presence", async () => {
    as("api").subscribe("svc.test.echo", { queue: "api", callback: (_, m) => void m.respond(m.data) });
    await as("api").flush();
    const mux = new RequestMux(as("gateway"), inboxPrefix("gateway"));
    const reply = await mux.request("svc.test.echo", new TextEncoder().encode("hi"), headers(), 5_000);
    mux.close();
    expect(new TextDecoder().decode(reply.data)).toBe("hi");
    expect((await as("gateway").request("svc.test.echo", "again", { timeout: 5_000 })).string()).toBe(
      "again",
    );
    as("gateway").publish("$KV.presence.gateway.test", '{"role":"gateway"}');
    const presence = await bucket("api", "presence");
    await eventually(
      async () => (await presence.get("gateway.test")) !== null,
      30_000,
      "the gateway's heartbeat",
    );
  });

  it("behavior: ingest binds to CHAIN_EVENTS and publishes blocks (deduplicated by id), its status and heartbeat", async () => {
    const jsm = await Effect.runPromise(managerOf(as("ingest")));
    await Effect.runPromise(awaitStream(jsm, "CHAIN_EVENTS"));
    const js = jetstream(as("ingest"));
    const ack = await js.publish("chain.1.block", '{"number":1}', { msgID: "1:0x01" });
    expect(ack.stream).toBe("CHAIN_EVENTS");
    expect((await js.publish("chain.1.block", '{"number":1}', { msgID: "1:0x01" })).duplicate).toBe(true);
    as("ingest").publish("$KV.ingest_status.1", '{"chain_id":1}');
    as("ingest").publish("$KV.presence.ingest.test", '{"role":"ingest"}');
    const status = await bucket("api", "ingest_status");
    await eventually(
      async () => (await status.get("1"))?.string() === '{"chain_id":1}',
      30_000,
      "ingest status",
    );
    expect(await watched(status, "1")).toBe('{"chain_id":1}');
  });

  it("behavior: ingest takes, renews and reads a chain's lease, and a write at a stale revision is refused", async () => {
    const leases = await bucket("ingest", "chain_leases");
    const taken = await leases.create("7", '{"owner":"a"}');
    const renewed = await leases.update("7", '{"owner":"a","renewed":1}', taken);
    expect((await leases.get("7"))?.string()).toBe('{"owner":"a","renewed":1}');
    // A second ingest process that read the lease before the renewal cannot take it with that revision.
    await expect(leases.update("7", '{"owner":"b"}', taken)).rejects.toThrow(/wrong last sequence/);
    await expect(leases.create("7", '{"owner":"b"}')).rejects.toThrow();
    expect((await leases.get("7"))?.revision).toBe(renewed);
  });

  it("behavior: api purges a delivered key of the webhook outbox from its stream, leaving no marker", async () => {
    const outbox = await bucket("api", "webhook_outbox");
    await outbox.put("d.00.w.1", "done");
    await outbox.put("d.00.w.2", "queued");
    const jsm = await jetstreamManager(as("api"));
    await jsm.streams.purge("KV_webhook_outbox", { filter: "$KV.webhook_outbox.d.00.w.1" });
    expect(await outbox.get("d.00.w.1")).toBeNull();
    expect((await outbox.get("d.00.w.2"))?.string()).toBe("queued");
  });

  it("behavior: api binds every bucket and reads, writes, watches and lists the ones it owns", async () => {
    for (const name of Object.keys(BUCKETS) as ReadonlyArray<BucketName>) {
      // The chain leases are the ingest processes' alone (see the ingest test above).
      if (name === "chain_leases") continue;
      const kv = await bucket("api", name);
      expect((await kv.status()).bucket).toBe(name);
      if (name === "presence" || name === "ingest_status") continue;
      const revision = await kv.create("allowed.key", "1");
      await kv.update("allowed.key", "2", revision);
      expect((await kv.get("allowed.key"))?.string()).toBe("2");
      expect(await watched(kv, "allowed.>")).toBe("2");
      const keys: Array<string> = [];
      for await (const key of await kv.keys("allowed.>")) keys.push(key);
      expect(keys).toEqual(["allowed.key"]);
      await kv.delete("allowed.key");
      expect((await kv.get("allowed.key"))?.operation).toBe("DEL");
    }
  });

  it("behavior: api follows CHAIN_EVENTS (ordered and shared durable consumers, reads by sequence) and meters USAGE", async () => {
    const api = as("api");
    const jsm = await jetstreamManager(api);
    await jsm.consumers.add("CHAIN_EVENTS", {
      durable_name: "webhook-notifier",
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
    });
    await jsm.consumers.update("CHAIN_EVENTS", "webhook-notifier", { ack_wait: 10_000_000_000 });
    const notifier = await jetstream(api).consumers.get("CHAIN_EVENTS", "webhook-notifier");
    const block = await notifier.next({ expires: 5_000 });
    expect(block?.subject).toBe("chain.1.block");
    expect(await block?.ackAck()).toBe(true);
    const ordered = await jetstream(api).consumers.get("CHAIN_EVENTS", { deliver_policy: DeliverPolicy.All });
    const first = await ordered.next({ expires: 5_000 });
    expect(first?.subject).toBe("chain.1.block");
    expect((await jsm.streams.getMessage("CHAIN_EVENTS", { seq: first?.seq ?? 0 }))?.subject).toBe(
      "chain.1.block",
    );

    const ack = await jetstream(api).publish("usage.team", '{"cu":1}', { msgID: "usage-1" });
    expect(ack.stream).toBe("USAGE");
    await jsm.consumers.add("USAGE", { durable_name: "usage-aggregator", ack_policy: AckPolicy.Explicit });
    const usage = await (await jetstream(api).consumers.get("USAGE", "usage-aggregator")).next({
      expires: 5_000,
    });
    expect(usage?.string()).toBe('{"cu":1}');
    expect(await usage?.ackAck()).toBe(true);
  });

  // The webhook outbox (replicated deliveries and partition leases) is one of the buckets api writes (below).
  it("behavior: api processes answer admin calls", async () => {
    as("api").subscribe("admin.test.ping", { queue: "admin", callback: (_, m) => void m.respond("pong") });
    await as("api").flush();
    expect((await as("admin").request("admin.test.ping", "{}", { timeout: 5_000 })).string()).toBe("pong");
  });

  it("behavior: admin manages keys and teams in KV and hears about changes in every area it watches", async () => {
    for (const name of ["keys", "teams"] as const) {
      const kv = await bucket("admin", name);
      await kv.put("admin.key", "v");
      expect((await kv.get("admin.key"))?.string()).toBe("v");
      expect(await watched(kv, "admin.>")).toBe("v");
    }
    const heard = new Set<string>();
    for (const [area, subject] of Object.entries(ADMIN_CHANGE_SUBJECTS))
      as("admin").subscribe(subject, { callback: () => void heard.add(area) });
    await as("admin").flush();
    await (await bucket("api", "webhooks")).put("hook.changed", "{}");
    await (await bucket("api", "usage")).put("hour.2026010100", "{}");
    await (await bucket("api", "keys")).put("hash.changed", "{}");
    as("ingest").publish("$KV.ingest_status.2", "{}");
    await eventually(async () => heard.size === 4, 30_000, "a change notification of every area");
  });

  it("behavior: provision brings the layout up to date, recreates a deleted CHAIN_EVENTS, and changes nothing twice", async () => {
    const provision = as("provision");
    const names = (outcomes: ReadonlyArray<{ name: string; outcome: string }>, outcome: string) =>
      outcomes.filter((o) => o.outcome === outcome).map((o) => o.name);
    const jsm = await jetstreamManager(provision);
    // As if `presence` had been created without its TTL (keeping values forever, a 2-minute duplicate window).
    await jsm.streams.update("KV_presence", { max_age: 0, duplicate_window: 120_000_000_000 });
    expect(await jsm.streams.delete("CHAIN_EVENTS")).toBe(true);
    const first = await Effect.runPromise(provisionJetStream(provision));
    expect(names(first, "created")).toEqual(["stream CHAIN_EVENTS"]);
    expect(names(first, "updated")).toEqual(["bucket presence"]);
    expect((await jsm.streams.info("KV_presence")).config.max_age).toBe(15_000_000_000);
    const second = await Effect.runPromise(provisionJetStream(provision));
    expect(names(second, "unchanged")).toHaveLength(second.length);
  });
});
