import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import { Effect } from "effect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { blockSubject } from "../../../src/ingest/BlockPublisher.js";
import { DEFAULT_CHAIN_EVENTS_MAX_BYTES, provisionJetStream } from "../../../src/nats/provisionJetStream.js";
import { startTestNats, type TestNats } from "../../support/natsServer.js";

/*
 * CHAIN_EVENTS is bounded by bytes as well as by age, against a real nats-server with the service's
 * nats.conf: past its bound the oldest chain events are dropped and publishing goes on, so a busy
 * chain never fills the JetStream store and stops ingest.
 */

let nats: TestNats;
beforeAll(async () => {
  nats = await startTestNats();
});
afterAll(async () => {
  await nats?.stop();
});

describe("CHAIN_EVENTS' byte bound", { timeout: 60_000 }, () => {
  it("default: provisioning bounds CHAIN_EVENTS at CHAIN_EVENTS_MAX_GB's default, and a new bound updates it", async () => {
    const jsm = await jetstreamManager(await nats.connectAs("provision"));
    expect((await jsm.streams.info("CHAIN_EVENTS")).config.max_bytes).toBe(DEFAULT_CHAIN_EVENTS_MAX_BYTES);
    const outcomes = await Effect.runPromise(
      provisionJetStream(await nats.connectAs("provision"), {
        replicas: 1,
        chainEventsMaxBytes: 2 * 1024 ** 3,
      }),
    );
    expect(outcomes.find((o) => o.name === "stream CHAIN_EVENTS")?.outcome).toBe("updated");
    expect((await jsm.streams.info("CHAIN_EVENTS")).config.max_bytes).toBe(2 * 1024 ** 3);
    expect((await jsm.streams.info("USAGE")).config.max_bytes).toBe(-1);
  });

  it("behavior: past the bound the oldest events are dropped and every publish is still stored", async () => {
    const bound = 256 * 1024;
    await Effect.runPromise(
      provisionJetStream(await nats.connectAs("provision"), { replicas: 1, chainEventsMaxBytes: bound }),
    );
    const js = jetstream(await nats.connectAs("ingest"));
    const block = "x".repeat(16 * 1024);
    // Four times the bound: with a refusing store the later publishes would fail.
    for (let n = 1; n <= 64; n++) {
      const ack = await js.publish(blockSubject(1), block, { msgID: `1:${n}` });
      expect(ack.seq).toBe(n);
    }
    const state = (
      await (await jetstreamManager(await nats.connectAs("provision"))).streams.info("CHAIN_EVENTS")
    ).state;
    expect(state.last_seq).toBe(64);
    expect(state.bytes).toBeLessThanOrEqual(bound);
    expect(state.first_seq).toBeGreaterThan(1);
  });
});
