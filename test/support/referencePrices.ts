import { type Hex, type PublicClient, parseAbi } from "viem";
import type { ManifestChain, ManifestPool } from "../../src/devnet/DevnetManifest.js";

/**
 * An independent, plain-float reimplementation of docs/pricing.md for tests: read a pool's
 * state at a block straight from the chain and compute the price of `token` in the pool's
 * other token and the other side's depth. Concentrated pools are walked tick by tick (every
 * multiple of the tick spacing, not through the bitmap as the service's lens does).
 */
const abi = parseAbi([
  "function getReserves() view returns (uint112, uint112, uint32)",
  "function slot0() view returns (uint160, int24, uint16, uint16, uint16, uint8, bool)",
  "function liquidity() view returns (uint128)",
  "function ticks(int24) view returns (uint128, int128, uint256, uint256, int56, uint160, uint32, bool)",
  "function getSlot0(bytes32) view returns (uint160, int24, uint24, uint24)",
  "function getLiquidity(bytes32) view returns (uint128)",
  "function getTickLiquidity(bytes32, int24) view returns (uint128, int128)",
]);

/** The price band of docs/pricing.md: a factor of 1.02 either way. */
const BAND = 1.02;
/** Share of a constant-product reserve paid out across the band. */
const BAND_SHARE = 1 - 1 / Math.sqrt(BAND);

export interface ReferenceQuote {
  /** Units of the other token per unit of `token`. */
  readonly price: number;
  /** Whole units of the other token backing the price. */
  readonly otherDepth: number;
  readonly pool: ManifestPool;
}

const sqrtAtTick = (tick: number): number => 1.0001 ** (tick / 2);

/** Raw token0 and token1 paid out across the band, from the liquidity net of every spaced tick. */
export const bandDepths = async (
  sqrtPrice: number,
  tick: number,
  liquidity: number,
  spacing: number,
  liquidityNet: (tick: number) => Promise<number>,
): Promise<{ readonly band0: number; readonly band1: number }> => {
  let band1 = 0;
  let active = liquidity;
  let price = sqrtPrice;
  const low = sqrtPrice / Math.sqrt(BAND);
  for (let t = Math.floor(tick / spacing) * spacing; ; t -= spacing) {
    const stop = Math.max(sqrtAtTick(t), low);
    band1 += active * (price - stop);
    if (stop === low) break;
    active -= await liquidityNet(t);
    price = stop;
  }
  let band0 = 0;
  active = liquidity;
  price = sqrtPrice;
  const high = sqrtPrice * Math.sqrt(BAND);
  for (let t = (Math.floor(tick / spacing) + 1) * spacing; ; t += spacing) {
    const stop = Math.min(sqrtAtTick(t), high);
    band0 += active * (1 / price - 1 / stop);
    if (stop === high) break;
    active += await liquidityNet(t);
    price = stop;
  }
  return { band0, band1 };
};

export const referenceQuote = async (
  client: PublicClient,
  chain: ManifestChain,
  pool: ManifestPool,
  token: string,
  blockNumber: bigint,
): Promise<ReferenceQuote> => {
  const decimals = (address: string) =>
    Object.values(chain.tokens).find((t) => t.address.toLowerCase() === address.toLowerCase())!.decimals;
  const d0 = decimals(pool.token0);
  const d1 = decimals(pool.token1);
  const read = <T>(address: string, functionName: string, args: ReadonlyArray<unknown> = []) =>
    client.readContract({
      address: address as Hex,
      abi,
      functionName: functionName as "liquidity",
      args: args as [],
      blockNumber,
    }) as Promise<T>;
  let price0in1: number;
  let depth0: number;
  let depth1: number;
  if (pool.kind === "v2") {
    const [r0, r1] = await read<[bigint, bigint, number]>(pool.address!, "getReserves");
    price0in1 = Number(r1) / 10 ** d1 / (Number(r0) / 10 ** d0);
    depth0 = Number(r0) / 10 ** d0;
    depth1 = Number(r1) / 10 ** d1;
  } else {
    const v4 = pool.kind === "v4";
    const stateView = chain.contracts.uniswap_v4_state_view!;
    const [sqrt, tick] = v4
      ? await read<[bigint, number]>(stateView, "getSlot0", [pool.pool_id])
      : await read<[bigint, number]>(pool.address!, "slot0");
    const liquidity = v4
      ? await read<bigint>(stateView, "getLiquidity", [pool.pool_id])
      : await read<bigint>(pool.address!, "liquidity");
    const net = async (t: number) =>
      Number(
        v4
          ? (await read<[bigint, bigint]>(stateView, "getTickLiquidity", [pool.pool_id, t]))[1]
          : (await read<[bigint, bigint]>(pool.address!, "ticks", [t]))[1],
      );
    const s = Number(sqrt) / 2 ** 96;
    price0in1 = s * s * 10 ** (d0 - d1);
    const { band0, band1 } = await bandDepths(s, tick, Number(liquidity), pool.tick_spacing!, net);
    depth0 = band0 / BAND_SHARE / 10 ** d0;
    depth1 = band1 / BAND_SHARE / 10 ** d1;
  }
  return pool.token0.toLowerCase() === token.toLowerCase()
    ? { price: price0in1, otherDepth: depth1, pool }
    : { price: 1 / price0in1, otherDepth: depth0, pool };
};

/** The deepest of `pools` for `token` against an asset worth `otherUsd`: price and pool size in USD. */
export const deepest = async (
  client: PublicClient,
  chain: ManifestChain,
  pools: ReadonlyArray<ManifestPool>,
  token: string,
  otherUsd: number,
  blockNumber: bigint,
) => {
  const quotes = await Promise.all(
    pools.map((pool) => referenceQuote(client, chain, pool, token, blockNumber)),
  );
  const best = quotes.reduce((a, b) => (b.otherDepth > a.otherDepth ? b : a));
  return { priceUsd: best.price * otherUsd, poolSize: 2 * best.otherDepth * otherUsd, pool: best.pool };
};
