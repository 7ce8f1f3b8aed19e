import type { NatsConnection } from "@nats-io/transport-node";
import { Effect } from "effect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openBucket } from "../../../src/nats/JetStreamSetup.js";
import { inboxPrefix } from "../../../src/nats/NatsUser.js";
import { RequestMux } from "../../../src/nats/RequestMux.js";
import { isRevisionConflict } from "../../../src/nats/revisionConflict.js";
import { muxOutboxWrites } from "../../../src/webhooks/outbox/outboxWrites.js";
import { startTestNats, type TestNats } from "../../support/natsServer.js";

let nats: TestNats;
let nc: NatsConnection;
let mux: RequestMux;

beforeAll(async () => {
  nats = await startTestNats();
  nc = await nats.connectAs("api");
  mux = new RequestMux(nc, inboxPrefix("api"));
});

afterAll(async () => {
  mux?.close();
  await nats?.stop();
});

const bytes = (text: string) => new TextEncoder().encode(text);
const conflictOf = (write: Promise<unknown>) =>
  write.then(
    () => "written",
    (error: unknown) => (isRevisionConflict(error) ? "conflict" : String(error)),
  );

describe("the outbox's delivery writes through the request mux", () => {
  it("behavior: creates and revision-checked updates behave as the KV client's, as the api user", async () => {
    const kv = await Effect.runPromise(openBucket(nc, "webhook_outbox"));
    const writes = muxOutboxWrites(kv, mux, "webhook_outbox");
    const key = "d.03.w1.0000000000001-00000000000001-00000";
    const created = await writes.create(key, bytes('{"state":"queued"}'));
    expect((await kv.get(key))?.revision).toBe(created);
    // A chain event planned again names the same key: refused, the stored value kept.
    expect(await conflictOf(writes.create(key, bytes('{"state":"other"}')))).toBe("conflict");
    const updated = await writes.update(key, bytes('{"state":"done"}'), created);
    expect(updated).toBeGreaterThan(created);
    expect((await kv.get(key))?.string()).toBe('{"state":"done"}');
    // A process holding the older revision (it lost the partition) cannot overwrite.
    expect(await conflictOf(writes.update(key, bytes('{"state":"queued"}'), created))).toBe("conflict");
    expect((await kv.get(key))?.string()).toBe('{"state":"done"}');
    // Many writes asked for in one turn are all answered, each with its own revision.
    const many = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        writes.create(`d.04.w2.${String(i).padStart(5, "0")}`, bytes("{}")),
      ),
    );
    expect(new Set(many).size).toBe(50);
  });

  it("behavior: a key purged through the KV client (a deleted webhook's) can be created again, as with the KV client", async () => {
    const kv = await Effect.runPromise(openBucket(nc, "webhook_outbox"));
    const writes = muxOutboxWrites(kv, mux, "webhook_outbox");
    const key = "d.05.w3.0000000000001-00000000000002-00000";
    await writes.create(key, bytes('{"state":"queued"}'));
    await kv.purge(key);
    const again = await writes.create(key, bytes('{"state":"queued","again":true}'));
    expect((await kv.get(key))?.revision).toBe(again);
  });
});
