import { jetstreamManager } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import { Effect } from "effect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bucketStream, openBucket } from "../../../src/nats/JetStreamSetup.js";
import { streamTail } from "../../../src/nats/streamTail.js";
import { startTestNats, type TestNats } from "../../support/natsServer.js";

let nats: TestNats;
let nc: NatsConnection;

beforeAll(async () => {
  nats = await startTestNats();
  nc = await nats.connectAs("api");
});

afterAll(async () => {
  await nc?.close();
  await nats?.stop();
});

/** The two buckets whose watches the api user checks against their stream (nats.conf grants it STREAM.MSG.GET on them). */
describe.each([
  ["webhook_outbox", "d.03.>", "d.03.wh_a.1", "d.04.wh_b.1"],
  ["usage", "month.>", "month.202611", "hour.2026112300"],
] as const)("the stream tail of %s, as the api user", (bucket, filter, watched, other) => {
  it("behavior: finds the first message of the watched keys after a sequence, skipping other keys, and none past the last", async () => {
    const kv = await Effect.runPromise(openBucket(nc, bucket));
    const tail = streamTail(await jetstreamManager(nc), bucketStream(bucket), `$KV.${bucket}.`);
    const start = await tail.lastSeq();
    const otherSeq = await kv.put(other, "{}");
    const watchedSeq = await kv.put(watched, "{}");
    expect(await tail.lastSeq()).toBe(watchedSeq);
    expect(await tail.firstAfter(filter, start)).toBe(watchedSeq);
    expect(otherSeq).toBeLessThan(watchedSeq);
    expect(await tail.firstAfter(filter, watchedSeq)).toBeUndefined();
  });
});
