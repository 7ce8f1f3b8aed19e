import { jetstreamManager } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import { Effect } from "effect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createKey } from "../../../src/api/keys/KeyStore.js";
import {
  BUCKETS,
  bucketStream,
  OBJECT_STORES,
  objectStoreStream,
  openBucket,
  STREAMS,
} from "../../../src/nats/JetStreamSetup.js";
import { provisionWhenReady } from "../../../src/nats/provisionJetStream.js";
import { leaseKey, partitionOf } from "../../../src/webhooks/outbox/outboxBucketKeys.js";
import {
  type ClusterFixture,
  failoverGap,
  startClusterFixture,
  startLoad,
} from "../../support/clusterFixture.js";
import { diagnoseUndelivered, type OwedBlock } from "../../support/deliveryDiagnosis.js";
import { startNotifierBarrier } from "../../support/notifierBarrier.js";
import { PROCESS_DEADLINE_MS } from "../../support/runTs.js";
import { eventually } from "../../support/serviceHarness.js";
import { chainPublisher, syntheticBlock } from "../../support/syntheticBlocks.js";
import { addressOf, type Caller, callerFor, WEBHOOKS } from "../../support/webhookEnv.js";
import { type Received, type Receiver, startReceiver } from "../../support/webhookReceiver.js";

const ALL_STREAMS = [
  ...STREAMS.map((s) => s.name),
  ...Object.keys(BUCKETS).map((b) => bucketStream(b as never)),
  ...OBJECT_STORES.map(objectStoreStream),
];
const WALLET = addressOf(0xc1);
/** The wallet of the webhook whose receiver fails first: its deliveries are retrying when its sender dies. */
const RETRY_WALLET = addressOf(0xc2);

let f: ClusterFixture;
let receiver: Receiver;
/** Answers 503 (Retry-After: 2) while `retryFailing`, 200 after. */
let retryReceiver: Receiver;
let retryFailing = true;
let retryWebhookId: string;
let key: string;
let secret: string;
let ingest: NatsConnection;
let provision: NatsConnection;
/** Hashes of the synthetic blocks whose publish JetStream acknowledged: each must be delivered once. */
const acknowledged: Array<string> = [];
/** The block and stream sequence behind each acknowledged transaction hash. */
const owed = new Map<string, OwedBlock>();
let webhookId: string;
let nextBlock = 9_000_000;

const callVia = (url: string): Caller => callerFor(url, key);

/**
 * Publishes one block touching WALLET as ingestion would: a publish that is not acknowledged (no
 * stream leader for a moment) is sent again with the same message id until it is, since it may
 * have been stored all the same; the stream drops the copies. So every block in the stream is
 * owed once, and counted once here.
 */
const publishBlock = async () => {
  const block = syntheticBlock(1, nextBlock++, WALLET, addressOf(2), "cluster");
  let seq = 0;
  await eventually(
    () =>
      chainPublisher(ingest)
        .block(block)
        .then(
          (ack) => {
            seq = ack.seq;
            return true;
          },
          () => false,
        ),
    60_000,
    `block ${block.number} acknowledged`,
  );
  acknowledged.push(block.transactions[0].hash);
  owed.set(block.transactions[0].hash, { number: block.number, hash: block.hash, seq });
};

/** Publishes a block every `everyMs` until stopped. */
const publishing = (everyMs: number) => {
  let running = true;
  const loop = (async () => {
    while (running) {
      await publishBlock();
      await new Promise((r) => setTimeout(r, everyMs));
    }
  })();
  return async () => {
    running = false;
    await loop;
  };
};

/** The warnings and errors each API process logged, and the end of its log: what a failed wait needs explained. */
const processLogs = () =>
  f.cluster.apis
    .map(({ name, process }) => {
      const lines = process.output().split("\n");
      const warnings = lines.filter((l) => /level=(WARN|ERROR|FATAL)/.test(l)).slice(-30);
      // Its pid names it in the leases' owners (host:pid:id).
      return `\n--- ${name} (pid ${process.pid() ?? "none"}): warnings and errors ---\n${warnings.join("\n")}\n--- ${name}: last lines ---\n${lines.slice(-15).join("\n")}`;
    })
    .join("");

/**
 * Every acknowledged block's event arrives, each under exactly one webhook-id (one delivery, retries
 * aside). Only added events count: the synthetic blocks share chain 1 with the cluster's real ingest,
 * which, when a step fails with the killed node, reads its chain's messages back, finds these blocks
 * high above the node's head and removes them with a reorg (strays, publishedAfter.ts), and
 * that reorg is delivered as events with `removed: true` under their own ids.
 */
const expectEachDeliveredOnce = async (timeoutMs: number) => {
  const idsByHash = () => {
    const ids = new Map<string, Set<string>>();
    for (const event of receiver.events()) {
      if (event.removed === true) continue;
      const hash = event.hash as string;
      ids.set(hash, (ids.get(hash) ?? new Set()).add(event.webhook_id as string));
    }
    return ids;
  };
  await eventually(
    async () => acknowledged.every((hash) => idsByHash().has(hash)),
    timeoutMs,
    "every acknowledged block delivered",
  ).catch(async (error) => {
    const missing = acknowledged.filter((hash) => !idsByHash().has(hash));
    const api = await f.cluster.connectAs("api");
    const where = await diagnoseUndelivered(
      api,
      webhookId,
      missing.map((hash) => owed.get(hash)!),
    ).finally(() => api.close());
    throw new Error(
      `${String(error)}: ${missing.length} of ${acknowledged.length} missing\n${where}${processLogs()}`,
    );
  });
  const doubled = [...idsByHash()].filter(([, ids]) => ids.size > 1);
  expect(doubled).toEqual([]);
  expect(receiver.unverified(secret)).toEqual([]);
};

/** Waits until every stream and bucket has a leader and all its replicas are current. */
const allReplicasCurrent = async (timeoutMs: number) => {
  const jsm = await jetstreamManager(provision);
  await eventually(
    async () => {
      for (const name of ALL_STREAMS) {
        const info = await jsm.streams.info(name).catch(() => undefined);
        const cluster = info?.cluster;
        if (cluster?.leader === undefined || (cluster.replicas ?? []).some((r) => !r.current)) return false;
        if ((cluster.replicas ?? []).length !== 2) return false;
      }
      return true;
    },
    timeoutMs,
    "every stream with a leader and two current replicas",
  );
};

beforeAll(async () => {
  f = await startClusterFixture();
  await f.cluster.ready(PROCESS_DEADLINE_MS);
  key = (await Effect.runPromise(createKey(f.buckets, "faults"))).key;
  ingest = await f.cluster.connectAs("ingest");
  provision = await f.cluster.connectAs("provision");
  receiver = await startReceiver();
  const created = await callVia(f.cluster.apis[0]!.url)("POST", WEBHOOKS, {
    name: "cluster",
    url: receiver.url,
    type: "transactions",
    addresses: [WALLET],
  });
  expect(created.status, created.text).toBe(200);
  secret = created.json.secret as string;
  webhookId = created.json.id as string;
  retryReceiver = await startReceiver((_, res) => {
    if (retryFailing) res.writeHead(503, { "retry-after": "2" }).end();
    else res.writeHead(200).end("ok");
  });
  const retrying = await callVia(f.cluster.apis[0]!.url)("POST", WEBHOOKS, {
    name: "retrying",
    url: retryReceiver.url,
    type: "transactions",
    addresses: [RETRY_WALLET],
  });
  expect(retrying.status, retrying.text).toBe(200);
  retryWebhookId = retrying.json.id as string;
  // The barrier's webhook belongs to another team, so this team's CU count only its own deliveries.
  const barrierKey = (await Effect.runPromise(createKey(f.buckets, "barrier"))).key;
  const barrier = await startNotifierBarrier(
    callerFor(f.cluster.apis[1]!.url, barrierKey),
    chainPublisher(ingest),
    () => nextBlock++,
  );
  await barrier.pass();
  await barrier.stop();
}, 2 * PROCESS_DEADLINE_MS);

afterAll(async () => {
  await receiver?.stop();
  await retryReceiver?.stop();
  await ingest?.close();
  await provision?.close();
  await f?.stop();
});

describe("scale-out on a three-node NATS cluster", { timeout: 2 * PROCESS_DEADLINE_MS }, () => {
  it("behavior: kill -9 of the nats-server leading CHAIN_EVENTS under load: requests go on through the others, no acknowledged key, block, delivery or usage is lost", async () => {
    await allReplicasCurrent(60_000);
    const jsm = await jetstreamManager(provision);
    const leader = (await jsm.streams.info("CHAIN_EVENTS")).cluster?.leader;
    const node = f.cluster.nats.nodes.find((n) => n.name === leader);
    if (node === undefined) throw new Error(`CHAIN_EVENTS is led by ${leader}, not a node of the cluster`);

    const urls = f.cluster.apis.map((api) => api.url);
    const load = startLoad(() => urls, "/v1/account", key);
    const stopPublishing = publishing(100);
    const keys: Array<string> = [];
    let writing = true;
    const writer = (async () => {
      while (writing) {
        const made = await Effect.runPromise(Effect.either(createKey(f.buckets, "faults")));
        if (made._tag === "Right") keys.push(made.right.key);
        await new Promise((r) => setTimeout(r, 100));
      }
    })();

    await new Promise((r) => setTimeout(r, 2_000));
    const killedAt = load.now();
    await node.kill();
    // The node comes back whatever the checks find, so a failure here is not also every later test's.
    try {
      await new Promise((r) => setTimeout(r, 12_000));
      writing = false;
      await Promise.all([writer, stopPublishing()]);
      const samples = await load.stop();

      const gap = failoverGap(samples.filter((s) => s.at >= killedAt - 1_000));
      const after = samples.filter((s) => s.at > killedAt + 10_000);
      console.info(
        `nats node ${node.name} killed: ${samples.length} requests, ${gap.failed} failed, gap ${gap.gapMs} ms, failing ones started within ${gap.startedOverMs} ms`,
      );
      expect(after.length).toBeGreaterThan(0);
      expect(after.every((s) => s.status === 200)).toBe(true);

      // Every key whose write was acknowledged works, through either gateway.
      expect(keys.length).toBeGreaterThan(20);
      for (const [i, made] of keys.entries()) {
        const answer = await callerFor(urls[i % 2]!, made)("GET", "/v1/account");
        expect(answer.status, `key ${i} of ${keys.length}`).toBe(200);
      }
      await expectEachDeliveredOnce(60_000);

      // Usage records survived too: every delivered event is charged (2 CU each), and only a request
      // the receiver took is. A delivery whose record was lost with the node may be sent again by the
      // process that took its partition over, which charges it again (docs/webhooks.md, charged at
      // 2xx): so the charge lies between the events and the requests that carried them, and equals
      // the events when none was sent twice.
      const carried = () => receiver.events().length;
      const charged = async () =>
        (await callVia(urls[0]!)("GET", "/v1/account")).json.cu_used_this_month as number;
      await eventually(
        async () => {
          const cu = await charged();
          return cu >= 2 * acknowledged.length && cu <= 2 * carried();
        },
        30_000,
        "2 CU per delivered event, at most 2 per request taken",
      ).catch(async (error: Error) => {
        throw new Error(
          `${error.message}: ${await charged()} CU for ${acknowledged.length} events in ${carried()} requests${processLogs()}`,
        );
      });
      console.info(`${carried() - acknowledged.length} of ${carried()} requests were a delivery sent again`);
    } finally {
      await node.start();
    }
    await allReplicasCurrent(90_000).catch((error: Error) => {
      throw new Error(`${error.message}${processLogs()}`);
    });
  });

  it("behavior: while two API processes run every delivery is sent by one of them, once; after kill -9 of one, the other takes over its queued and retrying deliveries, each sent once, in order, without restarting it", async () => {
    // Both running: every webhook-id reaches the always-answering receiver exactly once.
    const before = receiver.received.length;
    const stopBoth = publishing(100);
    await new Promise((r) => setTimeout(r, 3_000));
    await stopBoth();
    await expectEachDeliveredOnce(60_000);
    const idsWhileBoth = receiver.received.slice(before).map((r) => r.headers["webhook-id"]!);
    expect(idsWhileBoth.length).toBeGreaterThan(10);
    expect(new Set(idsWhileBoth).size).toBe(idsWhileBoth.length);

    // The process owning the retrying webhook's partition is the one killed.
    const api = await f.cluster.connectAs("api");
    const outbox = await Effect.runPromise(openBucket(api, "webhook_outbox"));
    const lease = await outbox.get(leaseKey(partitionOf(retryWebhookId)));
    const owner = String((lease?.json() as { owner?: string } | undefined)?.owner);
    await api.close();
    const victim = f.cluster.apis.find((a) => owner.split(":")[1] === String(a.process.pid()));
    const survivor = f.cluster.apis.find((a) => a !== victim);
    if (victim === undefined || survivor === undefined)
      throw new Error(`partition owner ${owner} is not an API process`);

    // Its first delivery fails and waits to retry; four more queue behind it.
    const retryHashes: Array<string> = [];
    for (let i = 0; i < 5; i++) {
      const block = syntheticBlock(1, nextBlock++, RETRY_WALLET, addressOf(3), "cluster");
      await chainPublisher(ingest).block(block);
      retryHashes.push(block.transactions[0].hash);
    }
    await eventually(async () => retryReceiver.received.length >= 1, 30_000, "the first, failing attempt");
    const load = startLoad(() => [survivor.url], "/v1/account", key);
    const stopPublishing = publishing(100);
    await new Promise((r) => setTimeout(r, 1_000));
    const failedAttempts = retryReceiver.received.length;
    retryFailing = false;
    const killedAt = performance.now();
    const killedAtInLoad = load.now();
    await victim.process.kill();
    await new Promise((r) => setTimeout(r, 10_000));
    await stopPublishing();
    const samples = await load.stop();
    const gap = failoverGap(samples);
    console.info(
      `api process killed: ${samples.length} requests, ${gap.failed} failed, gap ${gap.gapMs} ms, failing ones started within ${gap.startedOverMs} ms`,
    );
    // Only requests the dead worker had taken fail (504 after REQUEST_TIMEOUT_MS); then the survivor answers all.
    expect(gap.failed).toBeLessThan(samples.length / 10);
    expect(samples.filter((s) => s.at > killedAtInLoad + 5_000).every((s) => s.status === 200)).toBe(true);

    // The survivor sends what the dead process had queued and was retrying, from the stored retry time.
    const delivered = () => retryReceiver.received.slice(failedAttempts);
    await eventually(
      async () => delivered().length >= retryHashes.length,
      60_000,
      "the retrying webhook's deliveries",
    ).catch((error: Error) => {
      // What the survivor logged says whether it took the partition and what it did with it.
      throw new Error(
        `${error.message}; ${delivered().length} of ${retryHashes.length} arrived; the survivor's log ends:\n${survivor.process.output().slice(-6_000)}`,
      );
    });
    const takeoverMs = delivered()[0]!.at - killedAt;
    console.info(`retrying deliveries taken over ${Math.round(takeoverMs)} ms after the kill`);
    const hashOf = (r: Received) => r.json.transactions?.[0]?.hash as string;
    // Each once (no second copy arrives), in the order the blocks were published, the failing one first.
    await new Promise((r) => setTimeout(r, 2_000));
    try {
      expect(delivered().map(hashOf)).toEqual(retryHashes);
    } catch (error) {
      throw new Error(
        `${(error as Error).message}\nthe survivor's log ends:\n${survivor.process.output().slice(-12_000)}`,
      );
    }
    expect(new Set(delivered().map((r) => r.headers["webhook-id"])).size).toBe(retryHashes.length);
    expect(delivered()[0]!.headers["webhook-id"]).toBe(retryReceiver.received[0]!.headers["webhook-id"]);
    // Blocks published around the kill reach the other webhook too, before the killed process is back.
    await expectEachDeliveredOnce(60_000);

    // Restarted, it rejoins: presence heartbeats every 5 s are seen by the other within a beat.
    victim.process.start();
    await f.cluster.ready(PROCESS_DEADLINE_MS);
    await eventually(
      async () => {
        const health = (await (await fetch(`${survivor.url}/healthz`)).json()) as {
          roles?: Record<string, number>;
        };
        return health.roles?.api === 2 && health.roles.gateway === 2 && health.roles.ingest === 1;
      },
      45_000,
      "both gateway+api processes live again",
    );
    const stopAgain = publishing(100);
    await new Promise((r) => setTimeout(r, 2_000));
    await stopAgain();
    await expectEachDeliveredOnce(60_000);
  });
  it("behavior: after the faults, provisioning brings the existing streams and buckets to JETSTREAM_REPLICAS, never a second copy", async () => {
    const jsm = await jetstreamManager(provision);
    const replicasOf = async () =>
      Object.fromEntries(
        await Promise.all(
          ALL_STREAMS.map(async (name) => [name, (await jsm.streams.info(name)).config.num_replicas]),
        ),
      );
    expect(Object.values(await replicasOf())).toEqual(ALL_STREAMS.map(() => 3));
    const down = await Effect.runPromise(provisionWhenReady(provision, { replicas: 1 }));
    expect(down.map((o) => o.outcome)).toEqual(ALL_STREAMS.map(() => "updated"));
    expect(Object.values(await replicasOf())).toEqual(ALL_STREAMS.map(() => 1));
    const up = await Effect.runPromise(provisionWhenReady(provision, { replicas: 3 }));
    expect(up.map((o) => o.outcome)).toEqual(ALL_STREAMS.map(() => "updated"));
    const again = await Effect.runPromise(provisionWhenReady(provision, { replicas: 3 }));
    expect(again.map((o) => o.outcome)).toEqual(ALL_STREAMS.map(() => "unchanged"));
    // Streams are named: an update that created a copy would have failed instead; each still holds its data.
    expect((await jsm.streams.info("KV_keys")).state.messages).toBeGreaterThan(0);
    await allReplicasCurrent(60_000);
  });
});
