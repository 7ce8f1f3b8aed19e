import { createTestClient, http } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ActivityContext, activityContext } from "../../../src/devnet/activity/ActivityContext.js";
import { approveMax } from "../../../src/devnet/ammActions.js";
import { receiptOf } from "../../../src/devnet/ChainClient.js";
import { roleAddress } from "../../../src/devnet/devAccounts.js";
import { aaveOracle } from "../../support/aaveOracle.js";
import { devnetNotifierProbe } from "../../support/devnetNotifierProbe.js";
import { type DevnetService, devnetChains, startDevnetService } from "../../support/devnetService.js";
import { eventually } from "../../support/serviceHarness.js";
import { type Caller, callerFor, WEBHOOKS } from "../../support/webhookEnv.js";
import { type Receiver, startReceiver } from "../../support/webhookReceiver.js";
import { buyWeth, supplierAndPair } from "../../support/wethUsdcSwaps.js";

/**
 * `value_change_pct` on the devnet: Base's seeded Aave V3 supplier (10,000 USDC and 2 WETH
 * supplied) is watched with a 5 % threshold, and WETH's price is moved by buying WETH with USDC in
 * the deep Uniswap V2 WETH/USDC pool (pricing takes WETH's price from its deepest pool against a
 * stablecoin, which that pool becomes as USDC flows in). The wallet's aWETH entry moves with the
 * price; its aUSDC entry does not.
 */

const CHAIN = 8453;
const THRESHOLD = 5;
let env: DevnetService;
let call: Caller;
let receiver: Receiver;
let ctx: ActivityContext;
const { chainOf, clientOf } = devnetChains(() => env);

type Json = Record<string, unknown>;
const requestsOf = (id: string) =>
  receiver.received.filter((r) => r.headers["svc-webhook-subscription-id"] === id);
const alertsOf = (id: string): ReadonlyArray<Json> =>
  requestsOf(id).flatMap((r) => [...((r.json.position_alerts ?? []) as ReadonlyArray<Json>)]);
const sent = (id: string) => alertsOf(id).filter((a) => a.removed === false);

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

/** The supplier, WETH and USDC, the deep V2 pair and its router, and the supplier's aWETH value at a block. */
const setup = () => {
  const cast = supplierAndPair(chainOf(CHAIN));
  const { supplier, weth } = cast;
  /**
   * The supplier's aWETH entry as the positions endpoint shows it at `block`, once the service's
   * index has reached it (before, the endpoint answers `BLOCK_NUMBER_AHEAD`).
   */
  const entryAt = async (block: bigint): Promise<Json> => {
    let positions: ReadonlyArray<Json> = [];
    await eventually(
      async () => {
        const answer = await env.get(
          `/beta/evm/defi/positions/${supplier}?chain_ids=${CHAIN}&block_number=${block}`,
        );
        const text = await answer.text();
        if (answer.status === 200) {
          positions = (JSON.parse(text) as { positions: ReadonlyArray<Json> }).positions;
          return true;
        }
        if (!text.includes("BLOCK_NUMBER_AHEAD"))
          throw new Error(`positions at ${block}: ${answer.status} ${text}`);
        return false;
      },
      30_000,
      `the index at block ${block}`,
    );
    return positions.find((p) => p.type === "Tokenized" && p.underlying_token === weth)!;
  };
  const valueAt = async (block: bigint) => (await entryAt(block)).usd_value as number;
  return { ...cast, cast, entryAt, valueAt };
};

/**
 * Buys WETH with USDC in the pair, a share of its USDC reserve at a time, until the supplier's aWETH
 * value is `pct` percent or more above `from`; the block where it first is.
 */
const raiseUntil = async (s: ReturnType<typeof setup>, from: number, pct: number, share = 0.03) => {
  for (let i = 0; i < 20; i++) {
    // The block before each swap planned first, so the alert names the swap's block.
    await notifierCaughtUp();
    const block = await buyWeth(ctx.client, s.cast, share);
    const value = await s.valueAt(block);
    if (((value - from) / Math.abs(from)) * 100 >= pct) return block;
  }
  throw new Error("the supplier's aWETH value never rose that far");
};

/** Waits until the notifier holds every webhook written so far and has planned every block mined. */
let notifierCaughtUp: () => Promise<void>;

/** A positions webhook on the supplier, known to the notifier, its positions discovered. */
const watch = async (s: ReturnType<typeof setup>, fields: Json) => {
  const created = await call("POST", WEBHOOKS, {
    name: "value alerts",
    url: receiver.url,
    type: "positions",
    addresses: [s.supplier],
    chain_ids: [CHAIN],
    ...fields,
  });
  expect(created.status, created.text).toBe(200);
  return created.json as Json & { id: string };
};

describe("value change alerts on the devnet", () => {
  it("behavior: a price move past the threshold alerts once at the endpoint's values; a small one does not; a second one does; a reorg retracts and restores the baseline", async () => {
    const s = setup();
    const deployer = roleAddress("deployer");
    await receiptOf(ctx.client, await approveMax(ctx.client, deployer, s.usdc, s.router));
    const webhook = await watch(s, {
      conditions: { value_change_pct: THRESHOLD },
      position_types: ["Tokenized"],
      protocols: ["aavev3"],
    });
    // Stored in the registry's spelling.
    expect(webhook.protocols).toEqual(["AaveV3"]);
    const excluded = await watch(s, {
      conditions: { value_change_pct: THRESHOLD },
      position_types: ["LendingV3"],
    });
    await notifierCaughtUp();
    // The wallet's history predates the service: its positions are read once its discovery is done.
    expect((await env.get(`/beta/evm/defi/positions/${s.supplier}?chain_ids=${CHAIN}`)).status).toBe(200);

    const start = await clientOf(CHAIN).getBlockNumber();
    const reference = await s.valueAt(start);
    const first = await raiseUntil(s, reference, THRESHOLD);
    await eventually(async () => sent(webhook.id).length > 0, 60_000, "the first alert");
    const alert = sent(webhook.id)[0]!;
    expect(alert).toMatchObject({
      condition: "value_change_pct",
      removed: false,
      chain_id: CHAIN,
      block_number: Number(first),
      subscribed_address: s.supplier,
      position_type: "Tokenized",
      protocol: "AaveV3",
      threshold: THRESHOLD,
    });
    // The values are the positions endpoint's: at the baseline's block and at the alert's.
    expect(alert.usd_value).toBe(await s.valueAt(first));
    expect(alert.usd_value_before).toBe(await s.valueAt(BigInt(alert.baseline_block_number as number)));
    expect(alert.change_pct as number).toBeGreaterThanOrEqual(THRESHOLD);
    const [before] = alert.positions_before as ReadonlyArray<Json>;
    const [after] = alert.positions_after as ReadonlyArray<Json>;
    expect(before).toEqual(await s.entryAt(first - 1n));
    expect(after).toEqual(await s.entryAt(first));

    // A move of about 0.3 %: nothing. Then past 5 % of the first alert's value: a second alert, and
    // nothing in between (one webhook's deliveries go in the order they were planned).
    const small = await raiseUntil(s, alert.usd_value as number, 0, 0.001);
    expect(Math.abs((await s.valueAt(small)) / (alert.usd_value as number) - 1)).toBeLessThan(0.01);
    const second = await raiseUntil(s, alert.usd_value as number, THRESHOLD);
    await eventually(async () => sent(webhook.id).length >= 2, 60_000, "the second alert");
    const secondAlert = sent(webhook.id)[1]!;
    expect(sent(webhook.id).map((a) => a.block_number)).toEqual([Number(first), Number(second)]);
    expect(secondAlert).toMatchObject({
      usd_value_before: alert.usd_value,
      baseline_block_number: Number(first),
    });
    expect(secondAlert.usd_value).toBe(await s.valueAt(second));
    // The supply of USDC never moved: every alert is of the aWETH entry.
    expect(new Set(sent(webhook.id).map((a) => a.position_key)).size).toBe(1);

    // A third move, then a reorg that takes it away: retracted, and the baseline is the second
    // alert's again, so the same move on the new branch alerts anew, measured from it.
    const anvil = createTestClient({ mode: "anvil", transport: http(chainOf(CHAIN).rpc_url) });
    const snapshot = await anvil.snapshot();
    const branchStart = await clientOf(CHAIN).getBlockNumber();
    const third = await raiseUntil(s, secondAlert.usd_value as number, THRESHOLD);
    await eventually(async () => sent(webhook.id).length >= 3, 60_000, "the third alert");
    const removedAlert = sent(webhook.id)[2]!;
    expect(removedAlert.block_number).toBe(Number(third));
    await anvil.revert({ id: snapshot });
    await anvil.mine({ blocks: Number(third - branchStart) + 2 });
    await eventually(
      async () => alertsOf(webhook.id).some((a) => a.removed === true),
      60_000,
      "the retraction",
    );
    expect(alertsOf(webhook.id).find((a) => a.removed === true)).toMatchObject({
      event_id: removedAlert.event_id,
      block_hash: removedAlert.block_hash,
    });
    const again = await raiseUntil(s, secondAlert.usd_value as number, THRESHOLD);
    await eventually(async () => sent(webhook.id).length >= 4, 60_000, "the alert on the new branch");
    const fresh = sent(webhook.id)[3]!;
    expect(fresh).toMatchObject({
      block_number: Number(again),
      usd_value_before: secondAlert.usd_value,
      baseline_block_number: Number(second),
    });
    expect(fresh.block_hash).not.toBe(removedAlert.block_hash);
    expect(fresh.usd_value).toBe(await s.valueAt(again));

    // The webhook whose position_types leave the supply out was sent nothing over all of it.
    expect(alertsOf(excluded.id)).toEqual([]);
    expect(receiver.unverified(webhook.secret as string, webhook.id)).toEqual([]);
  }, 600_000);

  it("behavior: position_types and protocols narrow the other conditions too: a health alert goes only where they name its market", async () => {
    const chain = chainOf(CHAIN);
    const weth = aaveOracle(chain, "WETH", () => notifierCaughtUp());
    const borrower = chain.lending_positions
      .find((p) => p.purpose === "borrower" && p.kind === "aave_v3" && p.market.toLowerCase() === weth.pool)!
      .owner.toLowerCase();
    const hooks = await Promise.all(
      [
        { position_types: ["Tokenized"], protocols: ["AaveV3"] },
        { position_types: ["LendingV3"] },
        { protocols: ["CompoundV3"] },
      ].map(async (filters) => {
        const created = await call("POST", WEBHOOKS, {
          name: "filtered health",
          url: receiver.url,
          type: "positions",
          addresses: [borrower],
          chain_ids: [CHAIN],
          conditions: { health_factor_below: 1.1 },
          ...filters,
        });
        expect(created.status, created.text).toBe(200);
        return created.json.id as string;
      }),
    );
    await notifierCaughtUp();
    expect((await env.get(`/beta/evm/defi/positions/${borrower}?chain_ids=${CHAIN}`)).status).toBe(200);
    // 85 % of WETH's price takes the borrower from about 1.2 to about 1.02.
    const drop = await weth.setPercent(85);
    const [aave, comet, compound] = hooks as [string, string, string];
    await eventually(async () => sent(aave).length > 0, 60_000, "the alert of the webhook naming Aave V3");
    expect(sent(aave)[0]).toMatchObject({ condition: "health_factor_below", block_number: Number(drop) });
    // Blocks planned after the drop's, and delivered: the others' deliveries of it would have gone too.
    await notifierCaughtUp();
    expect(alertsOf(comet)).toEqual([]);
    expect(alertsOf(compound)).toEqual([]);
    await weth.setPercent(110);
  }, 300_000);
});
