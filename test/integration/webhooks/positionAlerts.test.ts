import { createTestClient, http, parseAbi } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ActivityContext, activityContext } from "../../../src/devnet/activity/ActivityContext.js";
import { aaveOracle } from "../../support/aaveOracle.js";
import { compoundPrices } from "../../support/compoundPrices.js";
import { devnetNotifierProbe } from "../../support/devnetNotifierProbe.js";
import { type DevnetService, devnetChains, startDevnetService } from "../../support/devnetService.js";
import { eventually } from "../../support/serviceHarness.js";
import { type Caller, callerFor, WEBHOOKS } from "../../support/webhookEnv.js";
import { type Receiver, startReceiver } from "../../support/webhookReceiver.js";
import { dropAavePriceAndLiquidate } from "../positions/lendingActions.js";
import { closeTo, lendingReader } from "../positions/lendingReference.js";

/**
 * `positions` webhooks on the devnet: the Aave V3 oracle of Base is moved as governance would (a new
 * WETH price source), and the seeded borrower (10 WETH of collateral, health near 1.2) is watched
 * with `health_factor_below: 1.1`. The cToken fork's comptroller oracle and the Comet's WETH feed
 * are moved by their owner for the seeded Compound borrower (10 WETH in each market, health near 1.2).
 */

const CHAIN = 8453;
const THRESHOLD = 1.1;
let env: DevnetService;
let call: Caller;
let receiver: Receiver;
let ctx: ActivityContext;
const { chainOf, clientOf } = devnetChains(() => env);

const requestsOf = (id: string) =>
  receiver.received.filter((r) => r.headers["svc-webhook-subscription-id"] === id);
const alertsOf = (id: string) => requestsOf(id).flatMap((r) => [...(r.json.position_alerts ?? [])]);

const create = async (body: Record<string, unknown>) => {
  const answer = await call("POST", WEBHOOKS, { name: "alerts", url: receiver.url, ...body });
  expect(answer.status, answer.text).toBe(200);
  return { id: answer.json.id as string, secret: answer.json.secret as string };
};

/** Waits until the notifier holds every list written so far and has planned every block mined. */
let notifierCaughtUp: () => Promise<void>;

beforeAll(async () => {
  env = await startDevnetService({ webhookAllowHttp: true, webhookAllowedHosts: ["127.0.0.0/8"] });
  call = callerFor(env.service.baseUrl, env.key);
  receiver = await startReceiver();
  ctx = activityContext(chainOf(CHAIN));
  notifierCaughtUp = devnetNotifierProbe(call, receiver, ctx.client).caughtUp;
}, 900_000);

afterAll(async () => {
  await receiver?.stop();
  await env?.stop();
});

/** The seeded Aave V3 borrower of the chain, its pool's oracle for WETH, and its health factor at a block. */
const borrowerSetup = () => {
  const chain = chainOf(CHAIN);
  const weth = aaveOracle(chain, "WETH", () => notifierCaughtUp());
  const borrower = chain.lending_positions
    .find((p) => p.purpose === "borrower" && p.kind === "aave_v3" && p.market.toLowerCase() === weth.pool)!
    .owner.toLowerCase();
  const health = async (block: bigint) =>
    lendingReader(clientOf(CHAIN), chain, block).aaveHealth(weth.pool, borrower);
  return { chain, weth, borrower, health };
};

/** A positions webhook on the borrower, known to the notifier, its positions discovered. */
const watchBorrower = async (
  borrower: string,
  conditions: Record<string, unknown> = { health_factor_below: THRESHOLD },
) => {
  const webhook = await create({ type: "positions", addresses: [borrower], chain_ids: [CHAIN], conditions });
  await notifierCaughtUp();
  // The wallet's history predates the service: its positions are read once its discovery is done.
  const discovered = await env.get(`/beta/evm/defi/positions/${borrower}?chain_ids=${CHAIN}`);
  expect(discovered.status).toBe(200);
  return webhook;
};

describe("position alerts on the devnet", () => {
  it("behavior: an oracle drop alerts once at the pool's own health factor; hysteresis holds; recovery and a second drop alert again", async () => {
    const chain = chainOf(CHAIN);
    const weth = aaveOracle(chain, "WETH", () => notifierCaughtUp());
    const borrower = chain.lending_positions
      .find((p) => p.purpose === "borrower" && p.kind === "aave_v3" && p.market.toLowerCase() === weth.pool)!
      .owner.toLowerCase();
    const health = async (block: bigint) =>
      lendingReader(clientOf(CHAIN), chain, block).aaveHealth(weth.pool, borrower);
    const webhook = await create({
      type: "positions",
      addresses: [borrower],
      chain_ids: [CHAIN],
      conditions: { health_factor_below: THRESHOLD },
    });
    await notifierCaughtUp();
    // The wallet's history predates the service: its positions are read once its discovery is done.
    const discovered = await env.get(`/beta/evm/defi/positions/${borrower}?chain_ids=${CHAIN}`);
    expect(discovered.status).toBe(200);
    expect(alertsOf(webhook.id)).toEqual([]);

    // 85 % of WETH's price takes the borrower from about 1.2 to about 1.02.
    const firstDrop = await weth.setPercent(85);
    await eventually(async () => alertsOf(webhook.id).length > 0, 60_000, "the first alert");
    const first = alertsOf(webhook.id)[0]!;
    expect(first).toMatchObject({
      condition: "health_factor_below",
      removed: false,
      chain_id: CHAIN,
      block_number: Number(firstDrop),
      subscribed_address: borrower,
      lending_pool: weth.pool,
      threshold: THRESHOLD,
    });
    expect(first.health_factor).toBe(await health(firstDrop));
    expect(first.health_factor as number).toBeLessThan(THRESHOLD);
    expect(first.health_factor_before).toBe(await health(firstDrop - 1n));
    expect(first.health_factor_before as number).toBeGreaterThanOrEqual(THRESHOLD);
    // The positions as the positions endpoint shows them: the pool's supply and debt entries.
    const after = first.positions_after as ReadonlyArray<Record<string, unknown>>;
    expect(after.map((p) => p.token_type).sort()).toEqual(["SupplyTokenV3", "VariableDebtV3"]);
    expect(after.every((p) => p.health_factor === first.health_factor)).toBe(true);
    expect((first.positions_before as ReadonlyArray<unknown>).length).toBe(2);

    // Still below, then back above the threshold but under its re-arm level (5 % above), then below
    // again: no alert, the health factor only wobbled around the threshold.
    const deeper = await weth.setPercent(80);
    const wobbleUp = await weth.setPercent(95);
    const wobbleDown = await weth.setPercent(85);
    expect(await health(deeper)).toBeLessThan(THRESHOLD);
    expect(await health(wobbleUp)).toBeGreaterThanOrEqual(THRESHOLD);
    expect(await health(wobbleUp)).toBeLessThan(THRESHOLD * 1.05);
    expect(await health(wobbleDown)).toBeLessThan(THRESHOLD);

    // Recovery well above the re-arm level, then a second drop: a second alert at that block.
    const recovered = await weth.setPercent(110);
    expect(await health(recovered)).toBeGreaterThanOrEqual(THRESHOLD * 1.05);
    const secondDrop = await weth.setPercent(85);
    await eventually(async () => alertsOf(webhook.id).length >= 2, 60_000, "the second alert");
    // One webhook's deliveries go out in the order they were planned: an alert of any block between
    // the two drops would have come before the second.
    const alerts = alertsOf(webhook.id);
    expect(alerts.map((a) => a.block_number)).toEqual([Number(firstDrop), Number(secondDrop)]);
    expect(alerts[1]!.health_factor).toBe(await health(secondDrop));
    expect(receiver.unverified(webhook.secret, webhook.id)).toEqual([]);
    expect(requestsOf(webhook.id)[0]!.headers["svc-webhook-type"]).toBe("positions");
  }, 300_000);

  it("behavior: a reorg that removes the crossing block retracts the alert, and a crossing on the new branch alerts again", async () => {
    const { chain, weth, borrower, health } = borrowerSetup();
    // Well above the threshold first, whatever an earlier test left the price at.
    await weth.setPercent(110);
    const webhook = await watchBorrower(borrower);
    const anvil = createTestClient({ mode: "anvil", transport: http(chain.rpc_url) });
    const snapshot = await anvil.snapshot();
    const start = await clientOf(CHAIN).getBlockNumber();
    const crossing = await weth.setPercent(85);
    await eventually(async () => alertsOf(webhook.id).length > 0, 60_000, "the alert");
    const alert = alertsOf(webhook.id)[0]!;
    expect(alert).toMatchObject({ block_number: Number(crossing), removed: false });

    await anvil.revert({ id: snapshot });
    // The canonical branch grows past the height of the reorganised blocks.
    await anvil.mine({ blocks: Number(crossing - start) + 2 });
    await eventually(
      async () => alertsOf(webhook.id).some((a) => a.removed === true),
      60_000,
      "the retraction",
    );
    const retraction = alertsOf(webhook.id).find((a) => a.removed === true)!;
    expect(retraction).toMatchObject({ event_id: alert.event_id, block_hash: alert.block_hash });

    const again = await weth.setPercent(85);
    await eventually(
      async () => alertsOf(webhook.id).filter((a) => a.removed === false).length >= 2,
      60_000,
      "the alert on the new branch",
    );
    const fresh = alertsOf(webhook.id).filter((a) => a.removed === false)[1]!;
    expect(fresh.block_number).toBe(Number(again));
    expect(fresh.block_hash).not.toBe(alert.block_hash);
    expect(fresh.health_factor).toBe(await health(again));
  }, 300_000);

  it("behavior: a liquidation gives a liquidated alert whose amounts are the event's", async () => {
    const { chain, weth, borrower } = borrowerSetup();
    await weth.setPercent(90);
    const webhook = await watchBorrower(borrower, { liquidated: true });
    // 75 % of 90 % of WETH's price, then 1,000 USDC of the borrower's debt repaid against its WETH.
    const block = await dropAavePriceAndLiquidate(chain, borrower);
    await eventually(async () => alertsOf(webhook.id).length > 0, 60_000, "the liquidation alert");
    const [event] = await clientOf(CHAIN).getContractEvents({
      address: weth.pool as `0x${string}`,
      abi: parseAbi([
        "event LiquidationCall(address indexed collateralAsset, address indexed debtAsset, address indexed user, uint256 debtToCover, uint256 liquidatedCollateralAmount, address liquidator, bool receiveAToken)",
      ]),
      eventName: "LiquidationCall",
      fromBlock: block,
      toBlock: block,
    });
    const args = event!.args;
    const alerts = alertsOf(webhook.id);
    expect(alerts).toHaveLength(1);
    expect(alerts[0]).toMatchObject({
      condition: "liquidated",
      removed: false,
      block_number: Number(block),
      transaction_hash: event!.transactionHash,
      subscribed_address: borrower,
      lending_pool: weth.pool,
      protocol: "AaveV3",
      liquidator: args.liquidator!.toLowerCase(),
      seized: [
        { token: args.collateralAsset!.toLowerCase(), amount: String(args.liquidatedCollateralAmount) },
      ],
      repaid: [{ token: args.debtAsset!.toLowerCase(), amount: String(args.debtToCover) }],
    });
    expect(args.debtToCover).toBe(1_000_000_000n);
    // The debt entry shrank by what was repaid (interest aside: far less than a USDC in one block).
    const debtOf = (positions: unknown) =>
      (positions as ReadonlyArray<Record<string, unknown>>).find((p) => p.token_type === "VariableDebtV3")!
        .calculated_balance as number;
    expect(debtOf(alerts[0]!.positions_before) - debtOf(alerts[0]!.positions_after)).toBeCloseTo(1000, 0);
  }, 300_000);
  it("behavior: a comptroller oracle drop, then a Comet feed drop, each alert once under their market at the lens's health factor", async () => {
    const chain = chainOf(CHAIN);
    const prices = compoundPrices(chain, "WETH");
    const borrower = chain.lending_positions
      .find((p) => p.purpose === "borrower" && p.kind === "ctoken")!
      .owner.toLowerCase();
    const reader = (block: bigint) => lendingReader(clientOf(CHAIN), chain, block);
    const webhook = await watchBorrower(borrower);
    const head = await clientOf(CHAIN).getBlockNumber();
    expect((await reader(head).cTokenHealth(prices.comptroller, borrower)).health!).toBeGreaterThan(
      THRESHOLD,
    );
    expect((await reader(head).cometHealth(prices.comet, borrower)).health!).toBeGreaterThan(THRESHOLD);

    // 85 % of WETH's price in the comptroller's oracle only (a `PricePosted`): the cToken account crosses.
    await notifierCaughtUp();
    const oracleDrop = await prices.setOraclePercent(85);
    await eventually(async () => alertsOf(webhook.id).length > 0, 60_000, "the cToken alert");
    const first = alertsOf(webhook.id)[0]!;
    expect(first).toMatchObject({
      condition: "health_factor_below",
      block_number: Number(oracleDrop),
      subscribed_address: borrower,
      protocol: "ForkLend",
      lending_pool: prices.comptroller,
      threshold: THRESHOLD,
    });
    const atDrop = await reader(oracleDrop).cTokenHealth(prices.comptroller, borrower);
    expect(atDrop.shortfall).toBe(false);
    expect(closeTo(first.health_factor as number, atDrop.health!, 9)).toBe(true);
    expect(first.health_factor as number).toBeLessThan(THRESHOLD);
    const beforeDrop = (await reader(oracleDrop - 1n).cTokenHealth(prices.comptroller, borrower)).health!;
    expect(closeTo(first.health_factor_before as number, beforeDrop, 9)).toBe(true);
    // The comptroller's entries as the positions endpoint shows them at the block: the lens's value.
    const after = first.positions_after as ReadonlyArray<Record<string, unknown>>;
    expect(after.map((p) => `${p.type}:${p.token_type}`).sort()).toEqual([
      "LendingV2Fork:Borrow",
      "LendingV2Fork:Supply",
    ]);
    expect(after.every((p) => p.health_factor === first.health_factor)).toBe(true);

    // The same drop on the Comet's feed (an `AnswerUpdated`): the Comet account crosses; the cToken
    // account, still below, does not alert again.
    await notifierCaughtUp();
    const feedDrop = await prices.setFeedPercent(85);
    await eventually(async () => alertsOf(webhook.id).length >= 2, 60_000, "the Comet alert");
    const alerts = alertsOf(webhook.id);
    expect(alerts.map((a) => [a.lending_pool, a.block_number])).toEqual([
      [prices.comptroller, Number(oracleDrop)],
      [prices.comet, Number(feedDrop)],
    ]);
    const second = alerts[1]!;
    expect(second.protocol).toBe("CompoundV3");
    const cometAtDrop = await reader(feedDrop).cometHealth(prices.comet, borrower);
    expect(cometAtDrop.liquidatable).toBe(false);
    expect(closeTo(second.health_factor as number, cometAtDrop.health!, 9)).toBe(true);
    const cometAfter = second.positions_after as ReadonlyArray<Record<string, unknown>>;
    expect(cometAfter).toHaveLength(1);
    expect(cometAfter[0]).toMatchObject({
      type: "LendingV3",
      market: prices.comet,
      health_factor: second.health_factor,
    });
    expect(receiver.unverified(webhook.secret, webhook.id)).toEqual([]);

    await prices.setOraclePercent(100);
    await prices.setFeedPercent(100);
  }, 300_000);
});
