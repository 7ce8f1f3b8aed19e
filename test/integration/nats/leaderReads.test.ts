import type { Bucket } from "@nats-io/kv";
import type { NatsConnection } from "@nats-io/transport-node";
import { Effect } from "effect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { kvLeaseStore } from "../../../src/ingest/lease/LeaseStore.js";
import { openBucket } from "../../../src/nats/JetStreamSetup.js";
import { leaderReads } from "../../../src/nats/leaderReads.js";
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

  it("behavior: leases are read through the stream leader, as the ingest user (chain_leases) and the api user (the outbox partitions') may", async () => {
    const ingest = await nats.connectAs("ingest");
    try {
      for (const [nc, name, key] of [
        [ingest, "chain_leases", "probe"],
        [api, "webhook_outbox", "lease.probe"],
      ] as const) {
        const store = kvLeaseStore(await Effect.runPromise(openBucket(nc, name)));
        const record = { owner: "probe", renewed_at: new Date(0).toISOString(), checkpoint: null };
        const revision = await Effect.runPromise(store.create(key, record));
        // Denied STREAM.MSG.GET on the bucket's stream, this read fails: it goes to the leader.
        expect(await Effect.runPromise(store.read(key))).toEqual({ record, revision });
        expect(await Effect.runPromise(store.read(`${key}.absent`))).toBeUndefined();
      }
    } finally {
      await ingest.close();
    }
  });
});
