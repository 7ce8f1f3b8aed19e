import { describe, expect, it } from "vitest";
import { ProtocolConfig } from "../../../src/chains/ChainsConfig.js";
import type { IndexedPool } from "../../../src/indexer/IndexRecords.js";
import type { PositionManager } from "../../../src/indexer/positionNftEvents.js";
import type { HeldNft } from "../../../src/positions/discoverPositions.js";
import { type HeldRange, heldRangesCache, heldRangesOf } from "../../../src/webhooks/alerts/heldRanges.js";
import { alertBlock, logOf, word } from "../../support/alertBlocks.js";
import { testChainConfig } from "../../support/chainConfigFixture.js";

const address = (n: number) => `0x${n.toString(16).padStart(40, "0")}`;
const V3_FACTORY = address(0x3f);
const V3_MANAGER = address(0x3a);
const POOL_MANAGER = address(0x4f);
const V4_MANAGER = address(0x4a);
const STATE_VIEW = address(0x45);
const BARE_POOL_MANAGER = address(0x5f);
const BARE_V4_MANAGER = address(0x5a);
const POOL_ID = `0x${"ab".repeat(32)}`;

const chain = testChainConfig({
  protocols: [
    ProtocolConfig.make({
      protocol: "UniswapV3",
      kind: "v3",
      address: V3_FACTORY,
      position_manager: V3_MANAGER,
    }),
    ProtocolConfig.make({
      protocol: "UniswapV4",
      kind: "v4",
      address: POOL_MANAGER,
      position_manager: V4_MANAGER,
      state_view: STATE_VIEW,
    }),
    // A V4 deployment without a StateView: its pools' ticks cannot be read.
    ProtocolConfig.make({
      protocol: "BareV4",
      kind: "v4",
      address: BARE_POOL_MANAGER,
      position_manager: BARE_V4_MANAGER,
    }),
  ],
});

const held = (manager: PositionManager, pool: string, tokenId: bigint): HeldNft => {
  const indexed: IndexedPool = {
    pool,
    kind: manager.kind,
    protocol: manager.protocol,
    factory: manager.factory,
    token0: address(1),
    token1: address(2),
    fee: 3000,
    tick_spacing: 60,
    hooks: null,
    created_block: 1,
  };
  return {
    nft: {
      chain_id: 1,
      manager: manager.manager,
      token_id: tokenId,
      block: 1,
      minted: { pool, tick_lower: -120, tick_upper: 180 },
    },
    manager,
    pool: indexed,
    tickLower: -120,
    tickUpper: 180,
  };
};

const v3: PositionManager = { manager: V3_MANAGER, kind: "v3", protocol: "UniswapV3", factory: V3_FACTORY };
const v4: PositionManager = { manager: V4_MANAGER, kind: "v4", protocol: "UniswapV4", factory: POOL_MANAGER };
const bareV4: PositionManager = {
  manager: BARE_V4_MANAGER,
  kind: "v4",
  protocol: "BareV4",
  factory: BARE_POOL_MANAGER,
};

describe("heldRangesOf", () => {
  it("default: a V3 NFT keeps its pool address and range", () => {
    expect(heldRangesOf(chain, [held(v3, address(0x99), 5n)])).toEqual([
      {
        manager: V3_MANAGER,
        tokenId: 5n,
        pool: address(0x99),
        protocol: "UniswapV3",
        tickLower: -120,
        tickUpper: 180,
        kind: "v3",
      },
    ]);
  });

  it("behavior: a V4 NFT names its pool id, its PoolManager and the StateView that answers the tick", () => {
    expect(heldRangesOf(chain, [held(v4, POOL_ID, 7n)])).toEqual([
      {
        manager: V4_MANAGER,
        tokenId: 7n,
        pool: POOL_ID,
        protocol: "UniswapV4",
        tickLower: -120,
        tickUpper: 180,
        kind: "v4",
        poolManager: POOL_MANAGER,
        stateView: STATE_VIEW,
      },
    ]);
  });

  it("behavior: a V4 NFT of a PoolManager without a StateView is left out, as the positions endpoint leaves it", () => {
    expect(
      heldRangesOf(chain, [held(bareV4, POOL_ID, 8n), held(v3, address(0x99), 5n)]).map((r) => r.kind),
    ).toEqual(["v3"]);
  });
});

describe("heldRangesCache", () => {
  const WALLET = address(0xaa);
  const range: HeldRange = {
    manager: V3_MANAGER,
    tokenId: 5n,
    pool: address(0x99),
    protocol: "UniswapV3",
    tickLower: -120,
    tickUpper: 180,
    kind: "v3",
  };
  /** A cache over an index that answers `answers` in turn, counting its reads, and a discovery version. */
  const setup = (answers: ReadonlyArray<ReadonlyArray<HeldRange> | Error>) => {
    let reads = 0;
    let version = 0;
    const cache = heldRangesCache(
      async () => {
        const answer = answers[Math.min(reads++, answers.length - 1)]!;
        if (answer instanceof Error) throw answer;
        return answer;
      },
      { version: () => version },
    );
    const at = async (n: number, block = alertBlock(n)) =>
      (await cache.of(chain, block, new Set([WALLET])))[0]!.ranges;
    return { at, reads: () => reads, discovered: () => version++ };
  };

  it("default: read once, kept over blocks that do not involve the wallet", async () => {
    const { at, reads } = setup([[range]]);
    expect(await at(1)).toEqual([range]);
    expect(await at(2, alertBlock(2, { senders: [address(0xbb)] }))).toEqual([range]);
    expect(reads()).toBe(1);
  });

  it("behavior: read again after a block involves the wallet, as an NFT transfer to it does", async () => {
    const { at, reads } = setup([[], [range]]);
    expect(await at(1)).toEqual([]);
    const transfer = logOf(V3_MANAGER, [
      `0x${"dd".repeat(32)}`,
      word(address(0)),
      word(WALLET),
      word(address(5)),
    ]);
    expect(await at(2, alertBlock(2, { logs: [transfer] }))).toEqual([range]);
    expect(reads()).toBe(2);
  });

  it("behavior: a wallet read while its discovery ran is read again once discovery has written for it", async () => {
    const { at, reads, discovered } = setup([[], [range]]);
    expect(await at(1)).toEqual([]);
    expect(await at(2)).toEqual([]);
    discovered();
    expect(await at(3)).toEqual([range]);
    expect(reads()).toBe(2);
  });

  it("error: a failed read is read again at the next block rather than kept", async () => {
    const { at, reads } = setup([new Error("index closed"), [range]]);
    await expect(at(1)).rejects.toThrow("index closed");
    expect(await at(2)).toEqual([range]);
    expect(reads()).toBe(2);
  });
});
