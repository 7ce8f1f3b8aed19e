import { describe, expect, it } from "vitest";
import type { Position } from "../../../src/contracts/Positions.js";
import type { IndexReader } from "../../../src/indexer/IndexReader.js";
import type { IndexedPool } from "../../../src/indexer/IndexRecords.js";
import { priceSourcePools } from "../../../src/pricing/priceSources.js";
import { positionFootprints } from "../../../src/webhooks/alerts/positionFootprints.js";
import { alertBlock, logOf, word } from "../../support/alertBlocks.js";
import { testChainConfig } from "../../support/chainConfigFixture.js";

const address = (n: number) => `0x${n.toString(16).padStart(40, "0")}`;
const USDC = address(0x05dc);
const WETH = address(0xeee);
const UNI = address(0x0a1);
const WBTC = address(0xb7c);
const AAVE_POOL = address(0xa1);
const WETH_USDC = address(0x1001);
const UNI_WETH = address(0x1002);
const UNI_USDC = address(0x1003);
const WBTC_WETH = address(0x1004);
const V4_ID = `0x${"4".repeat(64)}`;
const POOL_MANAGER = address(0x4444);

const chain = testChainConfig({ stablecoins: [USDC], wrapped_native: WETH });
const pool = (address: string, token0: string, token1: string, kind: IndexedPool["kind"] = "v2") =>
  ({ pool: address, kind, token0, token1 }) as IndexedPool;
const POOLS = [
  pool(WETH_USDC, WETH, USDC),
  pool(UNI_WETH, UNI, WETH),
  pool(UNI_USDC, UNI, USDC),
  pool(WBTC_WETH, WBTC, WETH),
  pool(V4_ID, WBTC, USDC, "v4"),
];
/** The index as pricing reads it: each token's pools. */
const index = {
  poolsForToken: async (_chainId: number, token: string) =>
    POOLS.filter((p) => p.token0 === token || p.token1 === token),
} as unknown as IndexReader;

const supply = (underlying: string) =>
  ({
    type: "Tokenized",
    token: address(0xa7),
    underlying_token: underlying,
    lending_pool: AAVE_POOL,
  }) as unknown as Position;
const lp = (poolAddress: string, token0: string, token1: string) =>
  ({ type: "AmmV2", pool: poolAddress, token0, token1 }) as unknown as Position;

const WALLET = address(0xaaaa_0001);
const OTHER = address(0xaaaa_0002);
const swapOn = (poolAddress: string) => logOf(poolAddress, [`0x${"d7".repeat(32)}`]);

const footprints = (refresh = 32, version = () => 0, generation = () => 0) =>
  positionFootprints(
    {
      priceSources: (c, tokens) => priceSourcePools(index, c, tokens),
      lendingAsset: async () => undefined,
      discoveryVersion: version,
      discoveryGeneration: generation,
    },
    refresh,
  );

describe("price source pools", () => {
  it("default: a token's pools against stablecoins and hops, and the hops' own pools against stablecoins", async () => {
    expect(await priceSourcePools(index, chain, [UNI])).toEqual(new Set([UNI_WETH, UNI_USDC, WETH_USDC]));
    expect(await priceSourcePools(index, chain, [WETH])).toEqual(new Set([WETH_USDC]));
  });

  it("edge: stablecoins move with no pool; V4 pools are named by id; the native currency is priced as the wrapped one", async () => {
    expect(await priceSourcePools(index, chain, [USDC])).toEqual(new Set());
    expect(await priceSourcePools(index, chain, [WBTC])).toEqual(new Set([WBTC_WETH, WETH_USDC, V4_ID]));
    expect(await priceSourcePools(index, chain, [address(0)])).toEqual(new Set([WETH_USDC]));
  });
});

describe("position footprints", () => {
  it("behavior: a wallet is read once, then only at blocks that can move its positions' values", async () => {
    const prints = footprints();
    const wallets = new Set([WALLET]);
    expect(prints.due(chain, alertBlock(1), wallets)).toEqual([WALLET]);
    await prints.record(chain, WALLET, [supply(UNI)]);
    expect(prints.due(chain, alertBlock(2), wallets)).toEqual([]);
    // A swap where UNI is priced, or where WETH (UNI's hop) is.
    expect(prints.due(chain, alertBlock(3, { logs: [swapOn(UNI_USDC)] }), wallets)).toEqual([WALLET]);
    expect(prints.due(chain, alertBlock(4, { logs: [swapOn(WETH_USDC)] }), wallets)).toEqual([WALLET]);
    // The lending pool's own busy logs do not move a supply's value; a swap of another token does not either.
    expect(
      prints.due(chain, alertBlock(5, { logs: [swapOn(AAVE_POOL), swapOn(WBTC_WETH)] }), wallets),
    ).toEqual([]);
    // Its own transaction, or a log naming it (a transfer to it), may have opened a position.
    expect(prints.due(chain, alertBlock(6, { senders: [WALLET] }), wallets)).toEqual([WALLET]);
    const transfer = logOf(address(0x70), [`0x${"dd".repeat(32)}`, word(OTHER), word(WALLET)]);
    expect(prints.due(chain, alertBlock(7, { logs: [transfer] }), wallets)).toEqual([WALLET]);
  });

  it("behavior: an LP's own pool moves it; a V4 pool is recognised by its id in its PoolManager's log", async () => {
    const prints = footprints();
    const wallets = new Set([WALLET, OTHER]);
    prints.due(chain, alertBlock(1), wallets);
    await prints.record(chain, WALLET, [lp(address(0x2222), UNI, address(0x3333))]);
    await prints.record(chain, OTHER, [supply(WBTC)]);
    expect(prints.due(chain, alertBlock(2, { logs: [swapOn(address(0x2222))] }), wallets)).toEqual([WALLET]);
    const v4Swap = logOf(POOL_MANAGER, [`0x${"40".repeat(32)}`, V4_ID]);
    expect(prints.due(chain, alertBlock(3, { logs: [v4Swap] }), wallets)).toEqual([OTHER]);
  });

  it("behavior: wallets without a footprint are read a few a block; blocks unseen make every footprint due again", async () => {
    const prints = footprints(2);
    const wallets = new Set(Array.from({ length: 5 }, (_, i) => address(0xbbbb_0000 + i)));
    const seen: Array<ReadonlyArray<string>> = [];
    for (let n = 1; n <= 4; n++) {
      const due = prints.due(chain, alertBlock(n), wallets);
      seen.push(due);
      for (const wallet of due) await prints.record(chain, wallet, []);
    }
    expect(seen.map((due) => due.length)).toEqual([2, 2, 1, 0]);
    expect(new Set(seen.flat())).toEqual(wallets);
    // Block 9 follows block 4: blocks 5-8 went to another process, and every footprint is read again.
    const again: Array<number> = [];
    for (const n of [9, 10, 11, 11]) {
      const due = prints.due(chain, alertBlock(n), wallets);
      again.push(due.length);
      for (const wallet of due) await prints.record(chain, wallet, []);
    }
    // Block 11 planned a second time is no gap.
    expect(again).toEqual([2, 2, 1, 0]);
  });

  it("edge: once discovery has let go of as many wallets as it keeps since the chain's last block, every footprint is read again", async () => {
    let generation = 4;
    const prints = footprints(
      32,
      () => 0,
      () => generation,
    );
    const wallets = new Set([WALLET]);
    prints.due(chain, alertBlock(1), wallets);
    await prints.record(chain, WALLET, [supply(UNI)]);
    expect(prints.due(chain, alertBlock(2), wallets)).toEqual([]);
    // The chain stood still while discovery wrote for WALLET and let it go: its version reads 0
    // again, as when its footprint was read, but the generation moved.
    generation = 5;
    expect(prints.due(chain, alertBlock(3), wallets)).toEqual([WALLET]);
    await prints.record(chain, WALLET, [supply(UNI)]);
    expect(prints.due(chain, alertBlock(4), wallets)).toEqual([]);
  });

  it("behavior: discovery writing more of a wallet's history makes it due; a wallet no longer watched is forgotten", async () => {
    let version = 0;
    const prints = footprints(32, () => version);
    prints.due(chain, alertBlock(1), new Set([WALLET]));
    await prints.record(chain, WALLET, [supply(UNI)]);
    expect(prints.due(chain, alertBlock(2), new Set([WALLET]))).toEqual([]);
    version = 1;
    expect(prints.due(chain, alertBlock(3), new Set([WALLET]))).toEqual([WALLET]);
    await prints.record(chain, WALLET, [supply(UNI)]);
    expect(prints.due(chain, alertBlock(4, { logs: [swapOn(UNI_USDC)] }), new Set([OTHER]))).toEqual([OTHER]);
    expect(prints.due(chain, alertBlock(5), new Set([WALLET]))).toEqual([WALLET]);
  });
});
