import type { Bucket } from "@nats-io/kv";
import type { NatsConnection } from "@nats-io/transport-node";
import { Effect, Logger } from "effect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { kvLeaseStore } from "../../../src/ingest/lease/LeaseStore.js";
import { openBucket } from "../../../src/nats/JetStreamSetup.js";
import { leaderGets, leaderReads } from "../../../src/nats/leaderReads.js";
import { startTestNats, type TestNats } from "../../support/natsServer.js";

let nats: TestNats;
let api: NatsConnection;

beforeAll(async () => {
  nats = await startTestNats();
  api = await nats.connectAs("api");
});

afterAll(async () => {
  await api?.close();
  await nats?.stop();
});

describe("reads from a bucket's leader", () => {
  it("behavior: the api user reads keys and teams through the stream leader (not a direct get any replica may answer), and the bucket's own reads stay direct", async () => {
    for (const name of ["keys", "teams"] as const) {
      const kv = await Effect.runPromise(openBucket(api, name));
      await kv.put("probe.1", "fresh");
      const latest = leaderReads(kv);
      expect((latest as Bucket).direct).toBe(false);
      expect((kv as Bucket).direct).toBe(true);
      expect((await latest.get("probe.1"))?.string()).toBe("fresh");
      expect(await latest.get("probe.absent")).toBeNull();
    }
  });

  it("behavior: leases are read through the stream leader, as the ingest user (chain_leases) and the api user (the outbox partitions') may, with nothing to tell", async () => {
    const warnings: Array<string> = [];
    const logger = Logger.make(({ logLevel, message }) => {
      if (logLevel._tag === "Warning") warnings.push(String(message));
    });
    const run = <A, E>(effect: Effect.Effect<A, E>) =>
      Effect.runPromise(effect.pipe(Effect.provide(Logger.replace(Logger.defaultLogger, logger))));
    const record = { owner: "probe", renewed_at: new Date(0).toISOString(), checkpoint: null };
    const ingest = await nats.connectAs("ingest");
    try {
      for (const [nc, name, key] of [
        [ingest, "chain_leases", "probe"],
        [api, "webhook_outbox", "lease.probe"],
      ] as const) {
        const store = kvLeaseStore(await run(openBucket(nc, name)));
        const revision = await run(store.create(key, record));
        expect(await run(store.read(key))).toEqual({ record, revision });
        expect(await run(store.read(`${key}.absent`))).toBeUndefined();
      }
    } finally {
      await ingest.close();
    }
    expect(warnings).toEqual([]);
  });

  it("behavior: the api user reads a block's events from the leader of webhook_blocks, with nothing to tell", async () => {
    const told: Array<string> = [];
    const blocks = await Effect.runPromise(openBucket(api, "webhook_blocks"));
    await blocks.put("e.1.10.0x.0", "[]");
    const fromLeader = leaderGets(blocks, (message) => {
      told.push(message);
    });
    expect((await fromLeader("e.1.10.0x.0"))?.string()).toBe("[]");
    expect(told).toEqual([]);
  });
});
