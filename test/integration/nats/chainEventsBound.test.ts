import { spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import { Effect } from "effect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { blockSubject } from "../../../src/ingest/BlockPublisher.js";
import { freePort } from "../../../src/lib/freePort.js";
import { DEFAULT_CHAIN_EVENTS_MAX_BYTES, provisionJetStream } from "../../../src/nats/provisionJetStream.js";
import { startTestNats, type TestNats } from "../../support/natsServer.js";

/** A connection to the server at `url` once it listens. */
const eventuallyConnected = async (url: string) => {
  for (let attempt = 0; ; attempt++) {
    try {
      return await connect({ servers: url });
    } catch (error) {
      if (attempt > 100) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
};

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

  it("edge: a JetStream store smaller than the bound gets the largest bound it can reserve, not a refusal", async () => {
    // A plain nats-server whose store (1 GiB) cannot reserve the default 6 GiB for CHAIN_EVENTS.
    const dir = await mkdtemp(join(tmpdir(), "svc-small-store-"));
    const port = await freePort();
    await writeFile(
      join(dir, "small.conf"),
      `port: ${port}\nhost: 127.0.0.1\njetstream { max_memory_store: 64MB, max_file_store: 1GB, store_dir: "${join(dir, "store")}" }\n`,
    );
    const server = spawn("nats-server", ["-c", join(dir, "small.conf")], { stdio: "ignore" });
    try {
      const nc = await eventuallyConnected(`127.0.0.1:${port}`);
      const first = await Effect.runPromise(provisionJetStream(nc, { replicas: 1 }));
      expect(first.find((o) => o.name === "stream CHAIN_EVENTS")?.outcome).toBe("created");
      const bound = (await (await jetstreamManager(nc)).streams.info("CHAIN_EVENTS")).config.max_bytes;
      expect(bound).toBeGreaterThan(64 * 1024 ** 2);
      expect(bound).toBeLessThanOrEqual(1024 ** 3);
      const again = await Effect.runPromise(provisionJetStream(nc, { replicas: 1 }));
      expect(again.every((o) => o.outcome === "unchanged")).toBe(true);
      await nc.close();
    } finally {
      server.kill();
      await rm(dir, { recursive: true, force: true });
    }
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
