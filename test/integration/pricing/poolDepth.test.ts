import fc from "fast-check";
import { type Address, parseAbi, zeroAddress } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { aggregate3 } from "../../../src/chains/multicall3.js";
import { positionManagerV3Abi, v3FactoryAbi } from "../../../src/devnet/abis.js";
import {
  approveMax,
  approveThroughPermit2,
  v3Mint,
  v3Swap,
  v4Initialize,
  v4Mint,
  v4Swap,
} from "../../../src/devnet/ammActions.js";
import { type ChainClient, chainClient, execute } from "../../../src/devnet/ChainClient.js";
import type { ManifestChain } from "../../../src/devnet/DevnetManifest.js";
import { type PoolKey, sqrtBigInt, v4PoolId } from "../../../src/devnet/poolMath.js";
import { decodeDepth, v3DepthCall, v4DepthCall } from "../../../src/pricing/lens/depthLens.js";
import { depthLensCode } from "../../../src/pricing/lens/depthLensCode.js";
import { directChainRpc } from "../../support/chainRpc.js";
import { startTestDevnet, type TestDevnet } from "../../support/devnetFixture.js";
import { bandDepths } from "../../support/referencePrices.js";

/**
 * PoolDepthLens against an independent walk: random positions in fresh V4 pools (any tick
 * spacing, prices on both sides of tick 0), then the lens's band depths through the service's
 * own multicall path must equal a tick-by-tick sum read straight from StateView.
 */

const v3PoolAbi = parseAbi([
  "function slot0() view returns (uint160, int24, uint16, uint16, uint16, uint8, bool)",
  "function liquidity() view returns (uint128)",
  "function ticks(int24) view returns (uint128, int128, uint256, uint256, int56, uint160, uint32, bool)",
]);

const stateViewAbi = parseAbi([
  "function getSlot0(bytes32) view returns (uint160, int24, uint24, uint24)",
  "function getLiquidity(bytes32) view returns (uint128)",
  "function getTickLiquidity(bytes32, int24) view returns (uint128, int128)",
]);

let devnet: TestDevnet;
let chain: ManifestChain;
let client: ChainClient;
/** The service's RPC access to the same node, for the lens reads under test. */
let reader: ReturnType<typeof directChainRpc>["rpc"];
let closeReader: () => Promise<void> = async () => undefined;
let fee = 1;

beforeAll(async () => {
  devnet = await startTestDevnet();
  chain = devnet.manifest.chains.find((c) => c.chain_id === 1)!;
  client = chainClient(chain.chain_id, chain.name, chain.rpc_url);
  ({ rpc: reader, close: closeReader } = directChainRpc(chain.rpc_url, { chainId: chain.chain_id }));
  const from = chain.wallets.deployer as Address;
  for (const symbol of ["DAI", "USDT"]) {
    const token = chain.tokens[symbol]!.address as Address;
    await approveThroughPermit2(client, from, token, chain.contracts.uniswap_v4_position_manager as Address);
    await approveMax(client, from, token, chain.contracts.uniswap_v4_pool_swap_test as Address);
  }
});

afterAll(async () => {
  await closeReader();
  await devnet?.stop();
});

const lensDepth = async (poolId: string, spacing: number) => {
  const code = await depthLensCode();
  const [result] = await aggregate3(reader, [
    v4DepthCall(code, chain.contracts.uniswap_v4_state_view!, poolId, spacing),
  ]);
  return decodeDepth(result)!;
};

const referenceDepth = async (poolId: string, spacing: number) => {
  const stateView = chain.contracts.uniswap_v4_state_view as Address;
  const read = <T>(
    functionName: "getSlot0" | "getLiquidity" | "getTickLiquidity",
    args: readonly unknown[],
  ) =>
    client.publicClient.readContract({
      address: stateView,
      abi: stateViewAbi,
      functionName,
      args: args as never,
    }) as Promise<T>;
  const [sqrt, tick] = await read<[bigint, number]>("getSlot0", [poolId]);
  const liquidity = await read<bigint>("getLiquidity", [poolId]);
  return bandDepths(Number(sqrt) / 2 ** 96, tick, Number(liquidity), spacing, async (t) =>
    Number((await read<[bigint, bigint]>("getTickLiquidity", [poolId, t]))[1]),
  );
};

/**
 * Equal up to float error (1e-9 of the value) or the lens's integer rounding: each step of its
 * walk rounds down by less than two raw units, and a walk takes at most 2 x 256 steps.
 */
const referenceDepthV3 = async (pool: Address, spacing: number) => {
  const read = <T>(functionName: "slot0" | "liquidity" | "ticks", args: readonly unknown[] = []) =>
    client.publicClient.readContract({
      address: pool,
      abi: v3PoolAbi,
      functionName,
      args: args as never,
    }) as Promise<T>;
  const [sqrt, tick] = await read<[bigint, number]>("slot0");
  const liquidity = await read<bigint>("liquidity");
  return bandDepths(Number(sqrt) / 2 ** 96, tick, Number(liquidity), spacing, async (t) =>
    Number((await read<[bigint, bigint]>("ticks", [t]))[1]),
  );
};

const closeTo = (actual: bigint, expected: number) => {
  const error = Math.abs(Number(actual) - expected);
  expect(error <= 1e-9 * expected || error <= 1_024).toBe(true);
};

/**
 * A position around the opening tick, in ticks (snapped to the spacing): inside, across and beyond
 * the ±2 % band (about ±198 ticks), at most ±40 % away. Liquidity is kept small enough that even
 * the widest position costs the deployer under a million of either token.
 */
const position = fc.record({
  from: fc.integer({ min: -4_000, max: 4_000 }),
  width: fc.integer({ min: 1, max: 4_000 }),
  liquidity: fc.bigInt({ min: 10n ** 8n, max: 10n ** 11n }),
});

/** The position's ticks at `spacing`, around `base` (a multiple of it); never empty. */
const ticksOf = (p: { from: number; width: number }, base: number, spacing: number) => {
  const lower = base + Math.floor(p.from / spacing) * spacing;
  return { tickLower: lower, tickUpper: lower + Math.max(1, Math.round(p.width / spacing)) * spacing };
};

describe("PoolDepthLens", () => {
  it("behavior: band depths equal a tick-by-tick walk over random positions, spacings and prices", {
    timeout: 300_000,
  }, async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(1, 10, 60, 200),
        fc.double({ min: -2, max: 2, noNaN: true }),
        fc.array(position, { minLength: 1, maxLength: 5 }),
        fc.option(fc.boolean(), { nil: undefined }),
        async (spacing, log10Price, positions, swapDirection) => {
          const from = chain.wallets.deployer as Address;
          const dai = chain.tokens.DAI!.address as Address;
          const usdt = chain.tokens.USDT!.address as Address;
          const [currency0, currency1] = BigInt(dai) < BigInt(usdt) ? [dai, usdt] : [usdt, dai];
          // A fee never used before makes a new pool for every run.
          const key: PoolKey = { currency0, currency1, fee: fee++, tickSpacing: spacing, hooks: zeroAddress };
          const price = 10 ** log10Price;
          const sqrtPriceX96 = sqrtBigInt((BigInt(Math.round(price * 1e18)) * 2n ** 192n) / 10n ** 18n);
          await v4Initialize(
            client,
            from,
            chain.contracts.uniswap_v4_pool_manager as Address,
            key,
            sqrtPriceX96,
          );
          const tick = Math.floor(Math.log(price) / Math.log(1.0001));
          const base = Math.floor(tick / spacing) * spacing;
          for (const p of positions) {
            await v4Mint(client, {
              from,
              positionManager: chain.contracts.uniswap_v4_position_manager as Address,
              key,
              ...ticksOf(p, base, spacing),
              liquidity: p.liquidity,
              amount0Max: 2n ** 127n,
              amount1Max: 2n ** 127n,
              owner: from,
            });
          }
          if (swapDirection !== undefined) {
            // Moves the price through some of the positions, so the walk starts between ticks.
            await v4Swap(client, {
              from,
              poolSwapTest: chain.contracts.uniswap_v4_pool_swap_test as Address,
              key,
              zeroForOne: swapDirection,
              amountIn: 10n ** 6n,
            }).catch(() => undefined);
          }
          const poolId = v4PoolId(key);
          const lens = await lensDepth(poolId, spacing);
          const reference = await referenceDepth(poolId, spacing);
          closeTo(lens.band0, reference.band0);
          closeTo(lens.band1, reference.band1);
        },
      ),
      { numRuns: 12, endOnFailure: true },
    );
  });

  it("behavior: a V3 pool's band depths follow every position added to it and every swap through it", {
    timeout: 300_000,
  }, async () => {
    const from = chain.wallets.deployer as Address;
    const positionManager = chain.contracts.uniswap_v3_position_manager as Address;
    const dai = chain.tokens.DAI!.address as Address;
    const usdt = chain.tokens.USDT!.address as Address;
    const [token0, token1] = BigInt(dai) < BigInt(usdt) ? [dai, usdt] : [usdt, dai];
    // 1 DAI = 1 USDT: raw token1 per raw token0 is 1e-12 or 1e12, a tick far from zero.
    const raw =
      token0 === dai ? (10n ** 6n * 2n ** 192n) / 10n ** 18n : (10n ** 18n * 2n ** 192n) / 10n ** 6n;
    await execute(client, {
      from,
      address: positionManager,
      abi: positionManagerV3Abi,
      functionName: "createAndInitializePoolIfNecessary",
      args: [token0, token1, 500, sqrtBigInt(raw)],
    });
    for (const token of [token0, token1]) {
      await approveMax(client, from, token, positionManager);
      await approveMax(client, from, token, chain.contracts.uniswap_v3_swap_router as Address);
    }
    const pool = await client.publicClient.readContract({
      address: chain.contracts.uniswap_v3_factory as Address,
      abi: v3FactoryAbi,
      functionName: "getPool",
      args: [token0, token1, 500],
    });
    const spacing = 10;
    // A full-range base of 10,000 of each token, so that the random swaps move the price a little
    // through the random positions instead of running it to the end of the tick range.
    await v3Mint(client, {
      from,
      positionManager,
      token0,
      token1,
      fee: 500,
      tickLower: -887_270,
      tickUpper: 887_270,
      amount0: token0 === dai ? 10n ** 22n : 10n ** 10n,
      amount1: token0 === dai ? 10n ** 10n : 10n ** 22n,
      recipient: from,
    });
    const code = await depthLensCode();
    await fc.assert(
      fc.asyncProperty(position, fc.option(fc.boolean(), { nil: undefined }), async (p, swapDirection) => {
        const [, tick] = await client.publicClient.readContract({
          address: pool,
          abi: v3PoolAbi,
          functionName: "slot0",
        });
        const base = Math.floor(tick / spacing) * spacing;
        const { tickLower, tickUpper } = ticksOf(p, base, spacing);
        // Amounts for the random liquidity, with a margin: the manager mints the most liquidity they allow.
        const sqrtAt = (t: number) => 1.0001 ** (t / 2);
        const s = Math.min(Math.max(sqrtAt(tick), sqrtAt(tickLower)), sqrtAt(tickUpper));
        const amount0 = BigInt(Math.ceil(Number(p.liquidity) * (1 / s - 1 / sqrtAt(tickUpper)))) + 1n;
        const amount1 = BigInt(Math.ceil(Number(p.liquidity) * (s - sqrtAt(tickLower)))) + 1n;
        await v3Mint(client, {
          from,
          positionManager,
          token0,
          token1,
          fee: 500,
          tickLower,
          tickUpper,
          amount0,
          amount1,
          recipient: from,
        });
        if (swapDirection !== undefined) {
          await v3Swap(client, {
            from,
            router: chain.contracts.uniswap_v3_swap_router as Address,
            tokenIn: swapDirection ? token0 : token1,
            tokenOut: swapDirection ? token1 : token0,
            fee: 500,
            amountIn: swapDirection === (token0 === dai) ? 10n ** 15n : 10n ** 3n,
          }).catch(() => undefined);
        }
        const [result] = await aggregate3(reader, [v3DepthCall(code, pool, spacing)]);
        const lens = decodeDepth(result)!;
        const reference = await referenceDepthV3(pool, spacing);
        closeTo(lens.band0, reference.band0);
        closeTo(lens.band1, reference.band1);
      }),
      { numRuns: 10, endOnFailure: true },
    );
  });

  it("behavior: a full-range V3 pool's depth equals its reserves across the band, to the constant-product formula", async () => {
    const pool = chain.pools.find((p) => p.kind === "v3" && p.purpose === "v3_deep")!;
    const code = await depthLensCode();
    const [result] = await aggregate3(reader, [v3DepthCall(code, pool.address!, pool.tick_spacing!)]);
    const depth = decodeDepth(result)!;
    const s = Number(depth.sqrtPriceX96) / 2 ** 96;
    const share = 1 - 1 / Math.sqrt(1.02);
    closeTo(depth.band1, Number(depth.liquidity) * s * share);
    closeTo(depth.band0, (Number(depth.liquidity) / s) * share);
  });
});
