import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { jetstreamManager } from "@nats-io/jetstream";
import { Level } from "level";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BASE } from "../../../bench/replay/chainProfiles.js";
import { type ReplayNode, startReplayNode } from "../../../bench/replay/replayNode.js";
import { blockTimeKey, indexCheckpointKey } from "../../../src/indexer/indexKeys.js";
import { startTestNats, type TestNats } from "../../support/natsServer.js";
import {
  eventually,
  type RunningService,
  startService,
  writeChainsFile,
} from "../../support/serviceHarness.js";

/*
 * The service follows the replay node (bench/replay/) as it would a real chain: Base's blocks (60
 * transactions, about 90 logs, every 200 ms), with the last two blocks reorganised every 7 blocks. The index keeps up, follows every reorg to the node's canonical branch, and holds every
 * block it saw.
 */

let nats: TestNats;
let node: ReplayNode;
let service: RunningService | undefined;
let dir: string;

beforeAll(async () => {
  nats = await startTestNats();
  node = await startReplayNode({
    profile: { ...BASE, reorgEvery: 7 },
    chainId: 8453,
    firstBlock: 30_000_000,
    backlog: 20,
  });
  dir = await mkdtemp(join(tmpdir(), "svc-replay-"));
});

afterAll(async () => {
  await service?.stop();
  await node?.stop();
  await nats?.stop();
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

const indexedBlock = async (baseUrl: string): Promise<number | null> => {
  const health = (await (await fetch(`${baseUrl}/healthz`)).json()) as {
    chains: ReadonlyArray<{ indexed_block: number | null }>;
  };
  return health.chains[0]?.indexed_block ?? null;
};

describe("the service on a replay node's chain", { timeout: 120_000 }, () => {
  it("behavior: the index keeps within a few blocks of a 200 ms chain and ends on the node's branch after its reorgs", async () => {
    const chainsConfig = await writeChainsFile(dir, [{ chainId: 8453, name: "base", rpcUrl: node.url }]);
    const dataDir = join(dir, "data");
    service = await startService(nats, { chainsConfig, dataDir });
    const baseUrl = service.baseUrl;
    await eventually(
      async () => ((await indexedBlock(baseUrl)) ?? 0) >= node.head() - 5,
      30_000,
      "the index reaches the head",
    );
    const firstIndexed = (await indexedBlock(baseUrl))!;
    const firstHead = node.head();
    const lags: Array<number> = [];
    const until = Date.now() + 6_000;
    while (Date.now() < until) {
      lags.push(node.head() - ((await indexedBlock(baseUrl)) ?? 0));
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const last = lags.at(-1)!;
    lags.sort((a, b) => a - b);
    const median = lags[Math.floor(lags.length / 2)]!;
    console.log(`lag in blocks over 6 s of 200 ms blocks: p50 ${median}, max ${lags.at(-1)}, last ${last}`);
    // Keeping up: alone the index is within a second of the head (p50 1-2 blocks); the suite's
    // parallel files on two cores hold it a few seconds back (p50 up to 14 blocks seen), but it
    // keeps the chain's pace and never falls behind for good.
    expect(median).toBeLessThanOrEqual(20);
    expect(lags.at(-1)).toBeLessThanOrEqual(40);
    expect(last).toBeLessThanOrEqual(30);
    const lastIndexed = (await indexedBlock(baseUrl))!;
    expect(lastIndexed - firstIndexed).toBeGreaterThanOrEqual(20);
    // As many blocks indexed as the chain made meanwhile, give or take the lag's wobble.
    expect(lastIndexed - firstIndexed).toBeGreaterThanOrEqual(node.head() - firstHead - 15);
    // Reorgs happen once the head passes a multiple of 7: wait until the last indexed block is settled.
    await eventually(
      async () => node.head() > lastIndexed + 10,
      10_000,
      "the node moves past the last indexed block",
    );
    // The chain stops, so the index's last block cannot be reorganised after the service stops.
    node.freeze();
    await eventually(
      async () => (await indexedBlock(baseUrl)) === node.head(),
      15_000,
      "the index reaches the stopped chain's head",
    );
    await service.stop();
    service = undefined;

    // Ingest told the index of the reorgs: the last one names blocks the node has since replaced.
    const jsm = await jetstreamManager(await nats.connectAs("api"));
    const reorg = (await jsm.streams.getMessage("CHAIN_EVENTS", { last_by_subj: "chain.8453.reorg" }))!.json<{
      common_ancestor: { number: number };
      removed: ReadonlyArray<{ number: number; hash: string }>;
    }>();
    expect(reorg.common_ancestor.number).toBeGreaterThanOrEqual(firstIndexed - 10);
    for (const removed of reorg.removed) expect(removed.hash).not.toBe(node.block(removed.number).hash);

    const db = new Level<string, unknown>(join(dataDir, "leveldb"), { valueEncoding: "json" });
    await db.open();
    try {
      const checkpoint = (await db.get(indexCheckpointKey(8453))) as { number: number; hash: string };
      expect(checkpoint.number).toBeGreaterThanOrEqual(lastIndexed);
      expect(checkpoint.hash).toBe(node.block(checkpoint.number).hash);
      const times = await db.getMany(
        Array.from({ length: checkpoint.number - firstIndexed + 1 }, (_, i) =>
          blockTimeKey(8453, firstIndexed + i),
        ),
      );
      expect(times.filter((t) => t === undefined)).toEqual([]);
    } finally {
      await db.close();
    }
  });
});
