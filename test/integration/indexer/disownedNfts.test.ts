import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { jetstream } from "@nats-io/jetstream";
import { Effect, Fiber } from "effect";
import { Level } from "level";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeChainRegistry } from "../../../src/chains/ChainRegistry.js";
import { type ChainsConfigFile, ProtocolConfig } from "../../../src/chains/ChainsConfig.js";
import { DisownedNfts } from "../../../src/indexer/DisownedNfts.js";
import { IndexCache } from "../../../src/indexer/IndexCache.js";
import { runIndexer, STREAM_SEQ_KEY } from "../../../src/indexer/Indexer.js";
import { makeIndexReader } from "../../../src/indexer/IndexReader.js";
import { walletNftKey } from "../../../src/indexer/indexKeys.js";
import type { Db } from "../../../src/storage/Level.js";
import { testChainConfig } from "../../support/chainConfigFixture.js";
import { blockWithLogs } from "../../support/indexerBlocks.js";
import { startTestNats, type TestNats } from "../../support/natsServer.js";
import { eventually } from "../../support/serviceHarness.js";
import { ALICE, BOB, EVENTS, encodeLog } from "../../unit/decoding/fixtures.js";

/*
 * Stale position-NFT records that positions reads found owned by another address are deleted by the
 * indexer with its next batch, against a real nats-server and LevelDB, and only while still stale: a
 * record the same batch rewrites (the wallet got the NFT back after the read's block) stays.
 */

const MANAGER = "0xc36442b4a4522e871399cd717abdd847ab11fe88";
const chain = testChainConfig({
  protocols: [
    ProtocolConfig.make({
      protocol: "UniswapV3",
      kind: "v3",
      address: "0x1f98431c8ad98523631ae4a59f267346ea31f984",
      position_manager: MANAGER,
    }),
  ],
});
const registry = makeChainRegistry({ chains: [chain] } as unknown as ChainsConfigFile);

let nats: TestNats;
let dir: string;

beforeAll(async () => {
  nats = await startTestNats();
  dir = await mkdtemp(join(tmpdir(), "svc-index-disowned-"));
});

afterAll(async () => {
  await nats?.stop();
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

describe("stale position-NFT records", { timeout: 60_000 }, () => {
  it("behavior: the indexer deletes a record a read found disowned, and keeps one its batch gives back to the wallet", async () => {
    const js = jetstream(await nats.connectAs("ingest"));
    const level = new Level<string, unknown>(join(dir, "index"), { valueEncoding: "json" });
    await level.open();
    const db = level as unknown as Db;
    const wallet = ALICE.toLowerCase();
    const sold = walletNftKey(wallet, 1, MANAGER, 1n);
    const soldThenBack = walletNftKey(wallet, 1, MANAGER, 2n);
    // What discovery wrote at block 1: the wallet holds NFTs 1 and 2.
    await db.batch([
      { type: "put", key: sold, value: { block: 1 } },
      { type: "put", key: soldThenBack, value: { block: 1 } },
    ]);
    const cache = new IndexCache(1 << 20);
    const reader = makeIndexReader(db, cache);
    const disowned = new DisownedNfts();
    const indexer = Effect.runFork(
      runIndexer({ nc: await nats.connectAs("api"), db, cache, disowned, registry, client: () => undefined }),
    );
    try {
      for (const n of [1, 2, 3]) await js.publish("chain.1.block", JSON.stringify(blockWithLogs(n, [])));
      await eventually(async () => (await db.get(STREAM_SEQ_KEY)) === 3, 15_000, "blocks 1-3 applied");
      expect((await reader.positionNfts(wallet)).map((n) => n.token_id)).toEqual([1n, 2n]);

      // A read at block 3 saw both owned by someone else; block 4 gives NFT 2 back to the wallet.
      disowned.offer(
        [1n, 2n].map((tokenId) => ({ chainId: 1, wallet, manager: MANAGER, tokenId, readBlock: 3 })),
      );
      await js.publish(
        "chain.1.block",
        JSON.stringify(
          blockWithLogs(4, [
            encodeLog(EVENTS.erc721Transfer, { from: BOB, to: ALICE, tokenId: 2n }, { address: MANAGER }),
          ]),
        ),
      );
      await eventually(async () => (await db.get(STREAM_SEQ_KEY)) === 4, 15_000, "block 4 applied");
      expect(await db.get(sold)).toBeUndefined();
      expect(await db.get(soldThenBack)).toEqual({ block: 4 });
      // The request path's memory forgot the deleted record.
      expect((await reader.positionNfts(wallet)).map((n) => n.token_id)).toEqual([2n]);
      expect(disowned.size).toBe(0);
    } finally {
      await Effect.runPromise(Fiber.interrupt(indexer));
      await level.close();
    }
  });
});
