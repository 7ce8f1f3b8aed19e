import { type Address, maxUint256 } from "viem";
import { erc20Abi } from "../../abis.js";
import { manifestRole } from "../../chainManifest.js";
import type { ManifestLendingPosition } from "../../DevnetManifest.js";
import { roleAddress } from "../../devAccounts.js";
import { tokenDecimals } from "../../tokenDecimals.js";
import { units } from "../../tokenSpecs.js";
import type { WalletPlan } from "../compoundPlan.js";
import { type LendingSymbol, openingPriceUsd } from "../openingPrices.js";
import type { TxBatch } from "../txBatch.js";
import { cometAbi, devPriceFeedAbi } from "./cometAbis.js";
import { COMET_LIQUIDATION_ETH_USD, COMET_PLAN } from "./cometPlan.js";
import { COMET_BASE, type CometDeployment, feedAnswer } from "./deployComet.js";

type Tokens = Readonly<Record<LendingSymbol, Address>>;

const amount = (symbol: LendingSymbol, whole: number): bigint => units(whole, tokenDecimals(symbol));

/** Queues one wallet's plan in a Comet market: supply each asset (base or collateral), then borrow base. */
export const openCometPlan = async (
  batch: TxBatch,
  market: CometDeployment,
  tokens: Tokens,
  plan: WalletPlan,
): Promise<void> => {
  const owner = roleAddress(plan.role);
  for (const [symbol, whole] of Object.entries(plan.supply) as [LendingSymbol, number][]) {
    await batch.send({
      from: owner,
      address: tokens[symbol],
      abi: erc20Abi,
      functionName: "approve",
      args: [market.comet, maxUint256],
    });
    await batch.send({
      from: owner,
      address: market.comet,
      abi: cometAbi,
      functionName: "supply",
      args: [tokens[symbol], amount(symbol, whole)],
    });
  }
  if (plan.borrow === undefined) return;
  // Withdrawing base beyond the balance borrows it, as in Comet.
  await batch.send({
    from: owner,
    address: market.comet,
    abi: cometAbi,
    functionName: "withdraw",
    args: [tokens[plan.borrow.symbol], amount(plan.borrow.symbol, plan.borrow.amount)],
  });
};

const setEthPrice = (batch: TxBatch, market: CometDeployment, usd: number) =>
  batch.send({
    from: roleAddress("deployer"),
    address: market.priceFeeds.WETH,
    abi: devPriceFeedAbi,
    functionName: "setAnswer",
    args: [feedAnswer(usd)],
  });

/**
 * Absorbs `compoundLiquidated`: the WETH feed drops to {@link COMET_LIQUIDATION_ETH_USD}, the deployer calls
 * `absorb`, and the feed returns to the DEX price.
 */
const absorb = async (batch: TxBatch, market: CometDeployment) => {
  await setEthPrice(batch, market, COMET_LIQUIDATION_ETH_USD);
  await batch.send({
    from: roleAddress("deployer"),
    address: market.comet,
    abi: cometAbi,
    functionName: "absorb",
    args: [roleAddress("deployer"), [roleAddress("compoundLiquidated")]],
  });
  await setEthPrice(batch, market, openingPriceUsd("WETH"));
};

/**
 * The manifest's positions of one plan: base supply, a collateral per other asset supplied, base debt for
 * the borrow. The absorbed wallet keeps only what `absorb` credited beyond its debt: a base supply.
 */
export const cometPlanPositions = (
  market: CometDeployment,
  tokens: Tokens,
  plan: WalletPlan,
): ManifestLendingPosition[] => {
  const position = (
    symbol: LendingSymbol,
    side: ManifestLendingPosition["side"],
  ): ManifestLendingPosition => ({
    kind: "comet",
    protocol: market.protocol,
    wallet: manifestRole(plan.role),
    owner: roleAddress(plan.role),
    market: market.comet,
    asset: tokens[symbol],
    side,
    purpose: plan.purpose,
  });
  if (plan.purpose === "liquidated") return [position(COMET_BASE, "supply")];
  return [
    ...(Object.keys(plan.supply) as LendingSymbol[]).map((symbol) =>
      position(symbol, symbol === COMET_BASE ? "supply" : "collateral"),
    ),
    ...(plan.borrow === undefined ? [] : [position(plan.borrow.symbol, "debt")]),
  ];
};

/**
 * Opens the positions of {@link COMET_PLAN} in one Comet market (suppliers first, so borrowers find base
 * to borrow), then absorbs the `liquidated` wallet, all sent into `batch`. Wallets must be funded and
 * impersonated.
 */
export const seedCometPositions = async (
  batch: TxBatch,
  market: CometDeployment,
  tokens: Tokens,
): Promise<ManifestLendingPosition[]> => {
  for (const plan of COMET_PLAN) await openCometPlan(batch, market, tokens, plan);
  await absorb(batch, market);
  return COMET_PLAN.flatMap((plan) => cometPlanPositions(market, tokens, plan));
};
