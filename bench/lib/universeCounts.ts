import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Effect } from "effect";
import { Level as ClassicLevel } from "level";
import { loadChainsFile } from "../../src/chains/Chains.js";
import type { ChainConfig } from "../../src/chains/ChainsConfig.js";
import { makeTokenLists } from "../../src/discovery/tokenLists.js";
import { type TokenUniverse, tokenUniverse } from "../../src/discovery/tokenUniverse.js";
import { tokenMetadataKey } from "../../src/indexer/indexKeys.js";
import { levelPath } from "../../src/storage/dataDirDb.js";
import type { Db } from "../../src/storage/Level.js";

/**
 * Each chain's token universe as a stopped service's data left it (`tokenUniverse` over its
 * LevelDB, the chains file's lists and the service's default cap of 50,000), by chain id.
 */
export const universeCounts = async (
  chainsConfig: string,
  dataDir: string,
  max = 50_000,
): Promise<ReadonlyMap<number, TokenUniverse>> => {
  const registry = await Effect.runPromise(loadChainsFile(chainsConfig));
  const lists = await makeTokenLists(registry.chains, {
    ...(registry.directory === undefined ? {} : { baseDir: registry.directory }),
    autoRefresh: false,
    warn: () => undefined,
  });
  const db = new ClassicLevel<string, unknown>(levelPath(dataDir), { valueEncoding: "json" });
  await db.open();
  try {
    const out = new Map<number, TokenUniverse>();
    for (const chain of registry.chains)
      out.set(
        chain.chain_id,
        await tokenUniverse(
          db as unknown as Db,
          chain,
          { listed: (chainId) => lists.tokensFor(chainId).map((token) => token.address) },
          max,
        ),
      );
    return out;
  } finally {
    lists.close();
    await db.close();
  }
};

/**
 * How long `tokenUniverse` takes (p50 of `repetitions`, after one untimed) on a LevelDB holding
 * metadata of `size` tokens of `chain` (the "seen" source, the one that grows with what live
 * blocks and discovery meet): a wallet's sweep reads it on every first request, on every chain.
 */
export const universeReadMs = async (
  chain: ChainConfig,
  size: number,
  repetitions: number,
): Promise<number> => {
  const dir = await mkdtemp(join(tmpdir(), "svc-bench-universe-"));
  const db = new ClassicLevel<string, unknown>(dir, { valueEncoding: "json" });
  await db.open();
  try {
    for (let from = 0; from < size; from += 5_000) {
      const batch = db.batch();
      for (let i = from; i < Math.min(size, from + 5_000); i++)
        batch.put(tokenMetadataKey(chain.chain_id, `0x${(0x7e57 + i).toString(16).padStart(40, "0")}`), {
          name: "Token",
          symbol: "TKN",
          decimals: 18,
        });
      await batch.write();
    }
    const sources = { listed: () => [] };
    await tokenUniverse(db as unknown as Db, chain, sources, 50_000);
    const samples: Array<number> = [];
    for (let i = 0; i < repetitions; i++) {
      const start = performance.now();
      await tokenUniverse(db as unknown as Db, chain, sources, 50_000);
      samples.push(performance.now() - start);
    }
    return samples.sort((a, b) => a - b)[Math.floor((samples.length - 1) / 2)]!;
  } finally {
    await db.close();
    await rm(dir, { recursive: true, force: true });
  }
};

/** The chains of a chains file. */
export const chainsOf = async (chainsConfig: string): Promise<ReadonlyArray<ChainConfig>> =>
  (await Effect.runPromise(loadChainsFile(chainsConfig))).chains;

/** "1,283 (configured 6, listed 36, lending 14, yield_split 0, seen 1,227)" */
export const describeUniverse = (universe: TokenUniverse): string => {
  const counts = Object.entries(universe.counts)
    .map(([source, n]) => `${source} ${n.toLocaleString("en-US")}`)
    .join(", ");
  return `${universe.tokens.length.toLocaleString("en-US")} (${counts}${universe.dropped > 0 ? `; ${universe.dropped} over the cap` : ""})`;
};
