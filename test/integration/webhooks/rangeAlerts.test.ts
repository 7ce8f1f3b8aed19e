import { type Address, type Hex, parseAbi, parseUnits, zeroAddress } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { poolSwapTestAbi, stateViewAbi } from "../../../src/devnet/abis.js";
import { type ActivityContext, activityContext } from "../../../src/devnet/activity/ActivityContext.js";
import { approveMax, v3Swap } from "../../../src/devnet/ammActions.js";
import { execute, receiptOf } from "../../../src/devnet/ChainClient.js";
import { roleAddress } from "../../../src/devnet/devAccounts.js";
import { type PoolKey, v4PoolId } from "../../../src/devnet/poolMath.js";
import { sqrtPriceAtTick } from "../../../src/positions/math/tickMath.js";
import { startDevnetNotifierProbe } from "../../support/devnetNotifierProbe.js";
import { type DevnetService, devnetChains, startDevnetService } from "../../support/devnetService.js";
import { eventually } from "../../support/serviceHarness.js";
import { type Caller, callerFor, WEBHOOKS } from "../../support/webhookEnv.js";
import { type Receiver, startReceiver } from "../../support/webhookReceiver.js";

/**
 * `out_of_range` and `in_range` on the devnet: the seeded Uniswap V3 position with a range of 600
 * ticks either side of the opening tick, in the positions' own 0.3 % WETH/USDC pool, pushed out of
 * its range by WETH sold into the pool and brought back by USDC sold into it; then the seeded
 * Uniswap V4 position of the native-ETH/USDC pool, moved the same way through v4-core's
 * PoolSwapTest (the PoolManager emits the swaps, naming the pool id).
 */

const CHAIN = 1;
let env: DevnetService;
let call: Caller;
let receiver: Receiver;
let ctx: ActivityContext;
let probe: Awaited<ReturnType<typeof startDevnetNotifierProbe>>;
const { chainOf, clientOf } = devnetChains(() => env);
const poolAbi = parseAbi([
  "function slot0() view returns (uint160, int24 tick, uint16, uint16, uint16, uint8, bool)",
  "function token0() view returns (address)",
  "function token1() view returns (address)",
]);

const requestsOf = (id: string) =>
  receiver.received.filter((r) => r.headers["svc-webhook-subscription-id"] === id);
const alertsOf = (id: string) => requestsOf(id).flatMap((r) => [...(r.json.position_alerts ?? [])]);

/**
 * A range webhook on `owner`, known to the notifier before the test's first swap (which is where
 * its positions are first seen, silently), the wallet's positions discovered; its id.
 */
const watchRanges = async (name: string, owner: string) => {
  const created = await call("POST", WEBHOOKS, {
    name,
    url: receiver.url,
    type: "positions",
    addresses: [owner],
    chain_ids: [CHAIN],
    conditions: { out_of_range: true, in_range: true },
  });
  expect(created.status, created.text).toBe(200);
  await probe.pass();
  // Its positions are discovered (the history predates the service) before the swaps.
  expect((await env.get(`/beta/evm/defi/positions/${owner}?chain_ids=${CHAIN}`)).status).toBe(200);
  return created.json.id as string;
};

beforeAll(async () => {
  env = await startDevnetService({ webhookAllowHttp: true, webhookAllowedHosts: ["127.0.0.0/8"] });
  call = callerFor(env.service.baseUrl, env.key);
  receiver = await startReceiver();
  ctx = activityContext(chainOf(CHAIN));
  probe = await startDevnetNotifierProbe(call, ctx.client);
}, 900_000);

afterAll(async () => {
  await probe?.stop();
  await receiver?.stop();
  await env?.stop();
});

describe("range alerts on the devnet", () => {
  it("behavior: a swap that moves a V3 position out of its range and one that brings it back give two alerts", async () => {
    const chain = chainOf(CHAIN);
    const seeded = chain.liquidity_positions.find((p) => p.purpose === "tokens_owed" && p.kind === "v3")!;
    const owner = seeded.owner.toLowerCase();
    const pool = seeded.pool.toLowerCase() as Address;
    const tick = async (block?: bigint) =>
      (
        await clientOf(CHAIN).readContract({
          address: pool,
          abi: poolAbi,
          functionName: "slot0",
          ...(block === undefined ? {} : { blockNumber: block }),
        })
      )[1];
    const inside = (t: number) => seeded.tick_lower! <= t && t < seeded.tick_upper!;
    expect(inside(await tick())).toBe(true);

    const id = await watchRanges("ranges", owner);

    const deployer = roleAddress("deployer");
    const router = chain.contracts.uniswap_v3_swap_router as Address;
    const weth = chain.tokens.WETH!.address as Address;
    const usdc = chain.tokens.USDC!.address as Address;
    await receiptOf(ctx.client, await approveMax(ctx.client, deployer, weth, router));
    await receiptOf(ctx.client, await approveMax(ctx.client, deployer, usdc, router));
    /** Sells `whole` of a token into the pool until `done` holds of the tick; the block where it first did. */
    const swapUntil = async (
      tokenIn: Address,
      tokenOut: Address,
      amount: bigint,
      done: (t: number) => boolean,
    ) => {
      for (let i = 0; i < 200; i++) {
        const receipt = await receiptOf(
          ctx.client,
          await v3Swap(ctx.client, {
            from: deployer,
            router,
            tokenIn,
            tokenOut,
            fee: 3000,
            amountIn: amount,
          }),
        );
        if (done(await tick(receipt.blockNumber))) return receipt.blockNumber;
        // Planned before the next swap, which could otherwise be mined while the notifier reads
        // this block's ticks: anvil can then answer a read at the head with the next block's state.
        await probe.pass();
      }
      throw new Error("the pool's tick never got there");
    };
    const left = await swapUntil(weth, usdc, parseUnits("0.5", 18), (t) => !inside(t));
    await eventually(async () => alertsOf(id).length >= 1, 60_000, "the out_of_range alert");
    const back = await swapUntil(usdc, weth, parseUnits("1500", chain.tokens.USDC!.decimals), inside);
    await eventually(async () => alertsOf(id).length >= 2, 60_000, "the in_range alert");

    const alerts = alertsOf(id);
    expect(alerts).toHaveLength(2);
    expect(alerts.map((a) => [a.condition, a.block_number])).toEqual([
      ["out_of_range", Number(left)],
      ["in_range", Number(back)],
    ]);
    expect(alerts[0]).toMatchObject({
      subscribed_address: owner,
      pool,
      tick_lower: seeded.tick_lower,
      tick_upper: seeded.tick_upper,
      token_id: `0x${BigInt(seeded.token_id!).toString(16)}`,
      tick: await tick(left),
    });
    const nftOf = (positions: unknown) =>
      (
        positions as ReadonlyArray<{ positions: ReadonlyArray<{ token_id: string; in_range: boolean }> }>
      )[0]!.positions.find((n) => n.token_id === alerts[0]!.token_id)!;
    expect(nftOf(alerts[0]!.positions_before).in_range).toBe(true);
    expect(nftOf(alerts[0]!.positions_after).in_range).toBe(false);
    expect(nftOf(alerts[1]!.positions_after).in_range).toBe(true);
  }, 300_000);

  it("behavior: swaps that move a V4 position out of its range and back give two alerts, with StateView's tick", async () => {
    const chain = chainOf(CHAIN);
    const seeded = chain.liquidity_positions.find((p) => p.purpose === "native_eth" && p.kind === "v4")!;
    const owner = seeded.owner.toLowerCase();
    const poolId = seeded.pool.toLowerCase() as Hex;
    const key: PoolKey = {
      currency0: zeroAddress,
      currency1: chain.tokens.USDC!.address as Address,
      fee: 3000,
      tickSpacing: 60,
      hooks: zeroAddress,
    };
    expect(v4PoolId(key)).toBe(poolId);
    const stateView = chain.contracts.uniswap_v4_state_view as Address;
    const tick = async (block: bigint) =>
      (
        await clientOf(CHAIN).readContract({
          address: stateView,
          abi: stateViewAbi,
          functionName: "getSlot0",
          args: [poolId],
          blockNumber: block,
        })
      )[1];
    const inside = (t: number) => seeded.tick_lower! <= t && t < seeded.tick_upper!;

    const id = await watchRanges("v4 ranges", owner);

    const deployer = roleAddress("deployer");
    const poolSwapTest = chain.contracts.uniswap_v4_pool_swap_test as Address;
    await receiptOf(ctx.client, await approveMax(ctx.client, deployer, key.currency1, poolSwapTest));
    /**
     * An exact-input swap capped at the price of `limit`: more than enough in, so the price stops
     * there (PoolSwapTest refunds the ether it does not use). The block it was mined in.
     */
    const swapTo = async (limit: number, zeroForOne: boolean, amountIn: bigint) =>
      (
        await execute(ctx.client, {
          from: deployer,
          address: poolSwapTest,
          abi: poolSwapTestAbi,
          functionName: "swap",
          args: [
            key,
            { zeroForOne, amountSpecified: -amountIn, sqrtPriceLimitX96: sqrtPriceAtTick(limit) },
            { takeClaims: false, settleUsingBurn: false },
            "0x",
          ],
          // Ether is currency0: sold as the call's value.
          ...(zeroForOne ? { value: amountIn } : {}),
        })
      ).blockNumber;
    // The first block that moves the pool records the position as it is (first seen, no alert):
    // a tick spacing inside the range, planned before the next swap; then one below the range,
    // then back to its middle.
    const near = await swapTo(seeded.tick_lower! + 60, true, parseUnits("10", 18));
    expect(inside(await tick(near))).toBe(true);
    await probe.pass();
    const left = await swapTo(seeded.tick_lower! - 60, true, parseUnits("10", 18));
    expect(inside(await tick(left))).toBe(false);
    await eventually(async () => alertsOf(id).length >= 1, 60_000, "the V4 out_of_range alert");
    const middle = Math.floor((seeded.tick_lower! + seeded.tick_upper!) / 2);
    const back = await swapTo(middle, false, parseUnits("50000", chain.tokens.USDC!.decimals));
    expect(inside(await tick(back))).toBe(true);
    await eventually(async () => alertsOf(id).length >= 2, 60_000, "the V4 in_range alert");

    const alerts = alertsOf(id);
    expect(alerts).toHaveLength(2);
    expect(alerts.map((a) => [a.condition, a.block_number, a.tick])).toEqual([
      ["out_of_range", Number(left), await tick(left)],
      ["in_range", Number(back), await tick(back)],
    ]);
    const tokenId = `0x${BigInt(seeded.token_id!).toString(16)}`;
    for (const alert of alerts)
      expect(alert).toMatchObject({
        subscribed_address: owner,
        protocol: "UniswapV4",
        pool: poolId,
        position_manager: seeded.position_manager!.toLowerCase(),
        token_id: tokenId,
        tick_lower: seeded.tick_lower,
        tick_upper: seeded.tick_upper,
      });
    // The NFT's own NftV4 entry, as the positions endpoint shows it at the block before and at the block.
    const nftOf = (positions: unknown) => {
      const entries = positions as ReadonlyArray<{
        type: string;
        positions: ReadonlyArray<{ token_id: string; in_range: boolean }>;
      }>;
      expect(entries.map((e) => [e.type, e.positions.map((n) => n.token_id)])).toEqual([
        ["NftV4", [tokenId]],
      ]);
      return entries[0]!.positions[0]!;
    };
    expect(nftOf(alerts[0]!.positions_before).in_range).toBe(true);
    expect(nftOf(alerts[0]!.positions_after).in_range).toBe(false);
    expect(nftOf(alerts[1]!.positions_before).in_range).toBe(false);
    expect(nftOf(alerts[1]!.positions_after).in_range).toBe(true);
  }, 300_000);
});
