import { type Address, parseAbi, parseUnits } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ActivityContext, activityContext } from "../../../src/devnet/activity/ActivityContext.js";
import { approveMax, v3Swap } from "../../../src/devnet/ammActions.js";
import { receiptOf } from "../../../src/devnet/ChainClient.js";
import { roleAddress } from "../../../src/devnet/devAccounts.js";
import { type DevnetService, devnetChains, startDevnetService } from "../../support/devnetService.js";
import { eventually } from "../../support/serviceHarness.js";
import { type Caller, callerFor, WEBHOOKS } from "../../support/webhookEnv.js";
import { type Receiver, startReceiver } from "../../support/webhookReceiver.js";

/**
 * `out_of_range` and `in_range` on the devnet: the seeded Uniswap V3 position with a range of 600
 * ticks either side of the opening tick, in the positions' own 0.3 % WETH/USDC pool, pushed out of
 * its range by WETH sold into the pool and brought back by USDC sold into it.
 */

const CHAIN = 1;
let env: DevnetService;
let call: Caller;
let receiver: Receiver;
let ctx: ActivityContext;
const { chainOf, clientOf } = devnetChains(() => env);
const poolAbi = parseAbi([
  "function slot0() view returns (uint160, int24 tick, uint16, uint16, uint16, uint8, bool)",
  "function token0() view returns (address)",
  "function token1() view returns (address)",
]);

const requestsOf = (id: string) =>
  receiver.received.filter((r) => r.headers["svc-webhook-subscription-id"] === id);
const alertsOf = (id: string) => requestsOf(id).flatMap((r) => [...(r.json.position_alerts ?? [])]);

beforeAll(async () => {
  env = await startDevnetService({ webhookAllowHttp: true, webhookAllowedHosts: ["127.0.0.0/8"] });
  call = callerFor(env.service.baseUrl, env.key);
  receiver = await startReceiver();
  ctx = activityContext(chainOf(CHAIN));
}, 900_000);

afterAll(async () => {
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

    const created = await call("POST", WEBHOOKS, {
      name: "ranges",
      url: receiver.url,
      type: "positions",
      addresses: [owner],
      chain_ids: [CHAIN],
      conditions: { out_of_range: true, in_range: true },
    });
    expect(created.status, created.text).toBe(200);
    const id = created.json.id as string;
    // Its positions are discovered (the history predates the service) before the swaps.
    expect((await env.get(`/beta/evm/defi/positions/${owner}?chain_ids=${CHAIN}`)).status).toBe(200);

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
});
