import { mkdtemp } from "node:fs/promises";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { startAnvil } from "../src/devnet/AnvilProcess.js";
import { initialStatus } from "../src/ingest/FollowerStatus.js";
import { freePort } from "../src/lib/freePort.js";
import { HEARTBEAT_MS } from "../src/presence/Presence.js";
import { startTestNats } from "../test/support/natsServer.js";
import { writeChainsFile } from "../test/support/serviceHarness.js";
import { chainPublisher, syntheticBlock } from "../test/support/syntheticBlocks.js";
import { startChild } from "./lib/child.js";

const SIZES = (process.env.BENCH_JOIN_SIZES ?? "1,10000,100000").split(",").map(Number);
/** Blocks published before the acknowledgements are awaited. */
const BATCH = 1_000;
const FROM = "0x1111111111111111111111111111111111111111";
const TO = "0x2222222222222222222222222222222222222222";

/**
 * Time to ready of an API worker joining late: a gateway+api process started
 * with an empty DATA_DIR against a CHAIN_EVENTS stream already holding N block
 * messages (synthetic blocks with one transfer each, as ingestion publishes
 * them), from spawning it to its first /healthz 200, which it answers only once
 * its index has applied what ingestion reported published. The smallest N (one
 * block: a worker is never ready before it has indexed something) is the
 * process's own start-up (Node, module loading, NATS binds), the floor the
 * other sizes add to. This process stands in for the ingest process (its
 * heartbeat, the chain's status, the blocks), so no chain is followed meanwhile.
 */
export const joiningWorkerBench = async () => {
  const nats = await startTestNats();
  const anvil = await startAnvil({ chainId: 1 });
  const dir = await mkdtemp(join(tmpdir(), "svc-bench-join-"));
  const chainsConfig = await writeChainsFile(dir, [{ chainId: 1, name: "ethereum", rpcUrl: anvil.rpcUrl }]);
  const benchNats = JSON.stringify({ url: nats.url, credentials: nats.credentials });
  const ingest = await nats.connectAs("ingest");
  const publisher = chainPublisher(ingest);
  let published = 0;
  const announce = () => {
    ingest.publish(
      "$KV.presence.ingest.bench",
      JSON.stringify({
        role: "ingest",
        instance: "bench",
        host: hostname(),
        pid: process.pid,
        at: new Date().toISOString(),
      }),
    );
    const status = initialStatus(1, "ethereum");
    const last = published - 1;
    ingest.publish(
      "$KV.ingest_status.1",
      JSON.stringify({ ...status, mode: "live", head: last, processed: published > 0 ? last : null, lag: 0 }),
    );
  };
  announce();
  const heartbeat = setInterval(announce, HEARTBEAT_MS);
  const lines: Array<string> = [];
  const readyMs: Record<number, number> = {};
  try {
    for (const size of SIZES) {
      const publishStarted = Date.now();
      while (published < size) {
        const batch = Array.from({ length: Math.min(BATCH, size - published) }, (_, i) =>
          publisher.block(syntheticBlock(1, published + i, FROM, TO)),
        );
        await Promise.all(batch);
        published += batch.length;
      }
      announce();
      const publishMs = Date.now() - publishStarted;
      const started = Date.now();
      const worker = await startChild(
        "bench/servers/service.ts",
        {
          ROLES: "gateway,api",
          PORT: String(await freePort()),
          BENCH_NATS: benchNats,
          CHAINS_CONFIG: chainsConfig,
          DATA_DIR: await mkdtemp(join(dir, "worker-")),
        },
        30 * 60_000,
      );
      readyMs[size] = Date.now() - started;
      await worker.stop();
      lines.push(
        `${size.toLocaleString("en-US")} messages in CHAIN_EVENTS: ready after ${(readyMs[size] / 1000).toFixed(1)} s` +
          (size === SIZES[0]
            ? " (the process's own start-up)"
            : ` (published in ${(publishMs / 1000).toFixed(1)} s)`),
      );
    }
    const floor = readyMs[SIZES[0]!];
    if (floor !== undefined)
      for (const size of SIZES.slice(1))
        lines.push(
          `catch-up beyond start-up at ${size.toLocaleString("en-US")}: ${((readyMs[size]! - floor) / 1000).toFixed(1)} s, ${Math.round(size / ((readyMs[size]! - floor) / 1000)).toLocaleString("en-US")} messages/s`,
        );
    return { name: "joining worker", lines, ratios: {} };
  } finally {
    clearInterval(heartbeat);
    await ingest.close();
    await anvil.stop();
    await nats.stop();
  }
};
