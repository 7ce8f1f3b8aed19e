import { MemoryLevel } from "memory-level";
import { describe, expect, it } from "vitest";
import { tellRecordedMisses } from "../../../src/discovery/tellRecordedMisses.js";
import { INDEX_TRIMMED_KEY, indexChainTrimmedKey, indexGapKey } from "../../../src/indexer/indexKeys.js";
import type { Db } from "../../../src/storage/Level.js";
import { testChainConfig } from "../../support/chainConfigFixture.js";
import { fakeChainRpc } from "../../support/chainRpc.js";
import { discoveryOverNode } from "../../support/walletDiscoveryFixture.js";

/*
 * What a restarted API worker's discovery learns from its index's records of what it missed
 * (Indexer.ts): chains indexed from their first block need discovery again only where the index
 * lacks something of theirs.
 */

const chains = [1, 2].map((chainId) => testChainConfig({ chain_id: chainId, name: `chain_${chainId}` }));
const WALLET = `0x${"ab".repeat(20)}`;
const freshDb = () => new MemoryLevel<string, unknown>({ valueEncoding: "json" }) as unknown as Db;

/** Discovery over chains the index holds from block 0, told what `db` records; what each chain needs. */
const statesAfterRestart = async (db: Db) => {
  const discovery = discoveryOverNode(
    db,
    fakeChainRpc(() => ({ kind: "fault", fault: { reason: "Rejected", detail: "not asked" } })),
    [],
    { indexedFrom: () => 0 },
  );
  await tellRecordedMisses(db, discovery);
  return chains.map((chain) => discovery.progress(chain, WALLET).state);
};

describe("what a restarted worker's discovery learns of what its index missed", () => {
  it("behavior: a chain's blocks ingest never published make only that chain need discovery", async () => {
    const db = freshDb();
    await db.put(indexChainTrimmedKey(2), { chain_id: 2, from: 10, to: 20, at: 5 });
    expect(await statesAfterRestart(db)).toEqual(["not_needed", "not_started"]);
  });

  it("behavior: dropped stream messages make every chain need discovery, a record an earlier version wrote with a chain included", async () => {
    const dropped = freshDb();
    await dropped.put(INDEX_TRIMMED_KEY, { from: 4, to: 9, at: 5 });
    expect(await statesAfterRestart(dropped)).toEqual(["not_started", "not_started"]);
    const earlier = freshDb();
    await earlier.put(INDEX_TRIMMED_KEY, { chain_id: 2, from: 10, to: 20, at: 5 });
    expect(await statesAfterRestart(earlier)).toEqual(["not_started", "not_started"]);
  });

  it("behavior: the blocks a chain's index jumped over are told as its gap", async () => {
    const db = freshDb();
    await db.put(indexGapKey(2), { from: 0, to: 99 });
    const told: Array<[number, number | undefined]> = [];
    await tellRecordedMisses(db, {
      indexTrimmed: () => undefined,
      indexGap: (chainId, to) => told.push([chainId, to]),
    });
    expect(told).toEqual([[2, 99]]);
  });
});
