import { describe, expect, it } from "vitest";
import type { IndexedPool } from "../../../src/indexer/IndexRecords.js";
import { NATIVE_CURRENCY, type PoolSnapshot } from "../../../src/pricing/poolReads.js";
import { selectPrices } from "../../../src/pricing/selectPrices.js";

const USDC = "0x00000000000000000000000000000000000000c1";
const WETH = "0x00000000000000000000000000000000000000e1";
const HOP = "0x00000000000000000000000000000000000000a1";
const DEEP = "0x00000000000000000000000000000000000000b1";
const SPAM = "0x00000000000000000000000000000000000000d1";
const e = (n: number, decimals: number) => BigInt(Math.round(n * 1e6)) * 10n ** BigInt(decimals - 6);

const pool = (id: string, kind: IndexedPool["kind"], token0: string, token1: string): IndexedPool => ({
  pool: id,
  kind,
  protocol: kind === "v2" ? "UniswapV2" : kind === "v3" ? "UniswapV3" : "UniswapV4",
  factory: "0x00000000000000000000000000000000000000f1",
  token0,
  token1,
  fee: null,
  tick_spacing: null,
  hooks: null,
  created_block: 1,
});

const v2 = (
  id: string,
  token0: string,
  token1: string,
  reserve0: bigint,
  reserve1: bigint,
): PoolSnapshot => ({
  pool: pool(id, "v2", token0, token1),
  sqrtPriceX96: undefined,
  depth0: reserve0,
  depth1: reserve1,
});

const decimals = new Map([
  [USDC, 6],
  [WETH, 18],
  [HOP, 18],
  [DEEP, 8],
  [SPAM, 18],
]);

const base = {
  stablecoins: [USDC],
  hops: [WETH],
  wrappedNative: WETH,
  decimals,
};

describe("selectPrices", () => {
  it("default: WETH from its deepest stable pool; a token priced through the WETH hop", () => {
    const prices = selectPrices({
      ...base,
      snapshots: [
        v2("0x01", USDC, WETH, e(3_000_000, 6), e(1_000, 18)),
        v2("0x02", USDC, WETH, e(3_100, 6), e(1, 18)),
        v2("0x03", HOP, WETH, e(1_000, 18), e(10, 18)),
      ],
    });
    expect(prices.get(WETH)?.priceUsd).toBeCloseTo(3000, 6);
    expect(prices.get(WETH)?.poolSize).toBeCloseTo(6_000_000, 0);
    expect(prices.get(WETH)?.pool?.pool).toBe("0x01");
    expect(prices.get(HOP)?.priceUsd).toBeCloseTo(30, 6);
    expect(prices.get(HOP)?.poolSize).toBeCloseTo(60_000, 0);
    expect(prices.get(USDC)).toMatchObject({ priceUsd: 1, poolSize: 6_000_000 });
  });

  it("behavior: the most liquid pool sets the price even when a thinner one quotes differently", () => {
    const prices = selectPrices({
      ...base,
      snapshots: [
        v2("0x01", USDC, WETH, e(3_000_000, 6), e(1_000, 18)),
        v2("0x04", DEEP, USDC, e(100, 8), e(2_000, 6)), // thin: 20 USD each, 4,000 USD pool
        v2("0x05", DEEP, USDC, e(10_000, 8), e(250_000, 6)), // deep: 25 USD each, 500,000 USD pool
      ],
    });
    expect(prices.get(DEEP)).toMatchObject({ pool: expect.objectContaining({ pool: "0x05" }) });
    expect(prices.get(DEEP)?.priceUsd).toBeCloseTo(25, 6);
    expect(prices.get(DEEP)?.poolSize).toBeCloseTo(500_000, 0);
  });

  it("behavior: a concentrated pool quoting another price loses to the deeper pool, whatever its spot price", () => {
    // 1 WETH = 30,000 USDC in a V3 pool whose positions hold 20 USDC near the price (depth as measured by the lens).
    const sqrt = BigInt(Math.floor(Math.sqrt(30_000e6 / 1e18) * 2 ** 48)) * 2n ** 48n;
    const fake: PoolSnapshot = {
      pool: pool("0x08", "v3", WETH, USDC),
      sqrtPriceX96: sqrt,
      depth0: e(1, 18),
      depth1: e(20, 6),
    };
    const prices = selectPrices({
      ...base,
      snapshots: [fake, v2("0x01", USDC, WETH, e(3_000_000, 6), e(1_000, 18))],
    });
    expect(prices.get(WETH)?.pool?.pool).toBe("0x01");
    expect(prices.get(WETH)?.priceUsd).toBeCloseTo(3000, 6);
  });

  it("behavior: V4's native currency is priced as wrapped native", () => {
    // 1 ETH = 3,000 USDC: token0 native (18), token1 USDC (6): raw ratio 3000e6/1e18.
    const sqrt = BigInt(Math.floor(Math.sqrt(3000e6 / 1e18) * 2 ** 48)) * 2n ** 48n;
    const snapshot: PoolSnapshot = {
      pool: pool(`0x${"ab".repeat(32)}`, "v4", NATIVE_CURRENCY, USDC),
      sqrtPriceX96: sqrt,
      depth0: e(100, 18),
      depth1: e(300_000, 6),
    };
    const prices = selectPrices({ ...base, snapshots: [snapshot] });
    expect(prices.get(WETH)?.priceUsd).toBeCloseTo(3000, 0);
    expect(prices.get(WETH)?.poolSize).toBeCloseTo(600_000, -2);
  });

  it("error: a token without any pool to a priced asset has no price", () => {
    const prices = selectPrices({ ...base, snapshots: [v2("0x07", HOP, DEEP, e(1, 18), e(1, 8))] });
    expect(prices.has(HOP)).toBe(false);
    expect(prices.has(DEEP)).toBe(false);
    // A stablecoin is worth 1 by configuration, even without a pool; nothing onchain backs it then.
    expect(prices.get(USDC)).toEqual({ priceUsd: 1, poolSize: 0, pool: undefined });
  });
});
