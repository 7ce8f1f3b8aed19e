import { mkdtemp } from "node:fs/promises";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { jetstreamManager } from "@nats-io/jetstream";
import { Objm } from "@nats-io/obj";
import { Effect } from "effect";
import { Level } from "level";
import { loadChainsFile } from "../src/chains/Chains.js";
import { startAnvil } from "../src/devnet/AnvilProcess.js";
import { walletTokenKey } from "../src/indexer/indexKeys.js";
import { readSnapshotInfo, writeSnapshot } from "../src/indexer/snapshot/IndexSnapshotStore.js";
import { indexFingerprint } from "../src/indexer/snapshot/indexFingerprint.js";
import { initialStatus } from "../src/ingest/FollowerStatus.js";
import { freePort } from "../src/lib/freePort.js";
import { HEARTBEAT_MS } from "../src/presence/Presence.js";
import { levelPath } from "../src/storage/dataDirDb.js";
import type { Db } from "../src/storage/Level.js";
import { startTestNats } from "../test/support/natsServer.js";
import { writeChainsFile } from "../test/support/serviceHarness.js";
import { chainPublisher, syntheticBlock } from "../test/support/syntheticBlocks.js";
import { startChild } from "./lib/child.js";

const SIZES = (process.env.BENCH_JOIN_SIZES ?? "1,10000,100000").split(",").map(Number);
/** Wallet-token records added to the last replayed index for the large snapshots (0: none). */
const INDEX_RECORDS = (process.env.BENCH_JOIN_INDEX_RECORDS ?? "1000000,5000000")
  .split(",")
  .map(Number)
  .filter((n) => n > 0);
/** Blocks published before the acknowledgements are awaited. */
const BATCH = 1_000;
const FROM = "0x1111111111111111111111111111111111111111";
const hex40 = (n: number) => `0x${n.toString(16).padStart(40, "0")}`;
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
 *
 * Then, per size, the same join from a snapshot: the replaying worker's index is written to the
 * `index_snapshots` store as its own schedule would (snapshotIfDue, on its LevelDB once it has
 * stopped), and another worker with an empty DATA_DIR starts from it, replaying nothing after it.
 * Last, the same with the last replayed index grown to BENCH_JOIN_INDEX_RECORDS wallet-token records
 * (a wallet touching a token, as ERC-20 transfers record them, over 2M wallets and 20k tokens): time to
 * ready against the index's size.
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
  let lastDir: string | undefined;
  const api = await nats.connectAs("api");
  const fingerprint = indexFingerprint(await Effect.runPromise(loadChainsFile(chainsConfig)));
  /** Writes the index under `dataDir` as the snapshot, replacing the stored one, as a worker's look would. */
  const snapshotOf = async (dataDir: string) => {
    const level = new Level<string, unknown>(levelPath(dataDir), { valueEncoding: "json" });
    await level.open();
    try {
      const store = await new Objm(api).open("index_snapshots");
      const jsm = await jetstreamManager(api);
      const streamCreated = (await jsm.streams.info("CHAIN_EVENTS")).created;
      const started = performance.now();
      const { info, records } = await writeSnapshot(
        store,
        level as unknown as Db,
        { streamCreated, fingerprint },
        (await readSnapshotInfo(store)).revision,
      );
      return { records, bytes: info.bytes, ms: performance.now() - started };
    } finally {
      await level.close();
    }
  };
  /** Adds wallet-token records to the index under `dataDir` until it holds `records` of them. */
  const growIndex = async (dataDir: string, from: number, to: number) => {
    const level = new Level<string, unknown>(levelPath(dataDir), { valueEncoding: "json" });
    await level.open();
    try {
      for (let n = from; n < to; ) {
        const batch = [];
        for (const end = Math.min(to, n + 10_000); n < end; n++)
          batch.push({
            type: "put" as const,
            key: walletTokenKey(
              hex40(0x100000 + (n % 2_000_000)),
              1,
              hex40(0xa0000000 + Math.floor(n / 2_000_000) * 20_000 + (n % 20_000)),
            ),
            value: { standard: "erc20", first_block: 18_000_000 + n },
          });
        await level.batch(batch);
      }
    } finally {
      await level.close();
    }
  };
  const profileDir = process.env.BENCH_SERVICE_CPU_PROF;
  /** Spawns a gateway+api worker with an empty DATA_DIR; answers ms until its first /healthz 200. */
  const join_ = async (dataDir: string) => {
    const started = Date.now();
    const worker = await startChild(
      "bench/servers/service.ts",
      {
        ROLES: "gateway,api",
        PORT: String(await freePort()),
        BENCH_NATS: benchNats,
        CHAINS_CONFIG: chainsConfig,
        DATA_DIR: dataDir,
        // This bench writes the snapshots itself, at known points.
        INDEX_SNAPSHOT_MINUTES: "0",
      },
      30 * 60_000,
      profileDir === undefined ? [] : ["--cpu-prof", `--cpu-prof-dir=${profileDir}`],
    );
    const ms = Date.now() - started;
    await worker.stop();
    return ms;
  };
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
      const replayDir = await mkdtemp(join(dir, "worker-"));
      lastDir = replayDir;
      readyMs[size] = await join_(replayDir);
      lines.push(
        `${size.toLocaleString("en-US")} messages in CHAIN_EVENTS: ready after ${(readyMs[size] / 1000).toFixed(1)} s` +
          (size === SIZES[0]
            ? " (the process's own start-up)"
            : ` (published in ${(publishMs / 1000).toFixed(1)} s)`),
      );
      const look = await snapshotOf(replayDir);
      const fromSnapshotMs = await join_(await mkdtemp(join(dir, "worker-")));
      lines.push(
        `  from a snapshot of that index (${look.records.toLocaleString("en-US")} records, ${(look.bytes / 1024 / 1024).toFixed(1)} MiB gzipped, written in ${(look.ms / 1000).toFixed(1)} s): ready after ${(fromSnapshotMs / 1000).toFixed(1)} s`,
      );
    }
    const largest = lastDir;
    let grown = 0;
    for (const records of INDEX_RECORDS) {
      if (largest === undefined) break;
      await growIndex(largest, grown, records);
      grown = records;
      const look = await snapshotOf(largest);
      const ms = await join_(await mkdtemp(join(dir, "worker-")));
      lines.push(
        `the index grown by ${records.toLocaleString("en-US")} wallet-token records (${look.records.toLocaleString("en-US")} in all, ${(look.bytes / 1024 / 1024).toFixed(1)} MiB gzipped, written in ${(look.ms / 1000).toFixed(1)} s): from its snapshot, ready after ${(ms / 1000).toFixed(1)} s`,
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
    await api.close();
    await ingest.close();
    await anvil.stop();
    await nats.stop();
  }
};
