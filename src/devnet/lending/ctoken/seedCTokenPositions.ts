import type { Address } from "viem";
import { maxUint256 } from "viem";
import { erc20Abi } from "../../abis.js";
import { manifestRole } from "../../chainManifest.js";
import type { ManifestLendingPosition } from "../../DevnetManifest.js";
import { roleAddress } from "../../devAccounts.js";
import { tokenDecimals } from "../../tokenDecimals.js";
import { units } from "../../tokenSpecs.js";
import type { WalletPlan } from "../compoundPlan.js";
import { type LendingSymbol, openingPriceUsd } from "../openingPrices.js";
import type { TxBatch } from "../txBatch.js";
import { comptrollerAbi, simplePriceOracleAbi, vTokenAbi } from "./ctokenAbis.js";
import { CTOKEN_LIQUIDATION_ETH_USD, CTOKEN_LIQUIDATION_REPAY_USDC, CTOKEN_PLAN } from "./ctokenPlan.js";
import { type CTokenDeployment, ctokenOraclePrice } from "./deployCTokenMarket.js";

type Tokens = Readonly<Record<LendingSymbol, Address>>;

const amount = (symbol: LendingSymbol, whole: number): bigint => units(whole, tokenDecimals(symbol));

/** Queues one wallet's plan in a cToken deployment: mint each supply, then enter those markets and borrow. */
export const openCTokenPlan = async (
  batch: TxBatch,
  market: CTokenDeployment,
  tokens: Tokens,
  plan: WalletPlan,
): Promise<void> => {
  const owner = roleAddress(plan.role);
  const supplied = Object.entries(plan.supply) as [LendingSymbol, number][];
  for (const [symbol, whole] of supplied) {
    const cToken = market.markets[symbol];
    await batch.send({
      from: owner,
      address: tokens[symbol],
      abi: erc20Abi,
      functionName: "approve",
      args: [cToken, maxUint256],
    });
    await batch.send({
      from: owner,
      address: cToken,
      abi: vTokenAbi,
      functionName: "mint",
      args: [amount(symbol, whole)],
    });
  }
  if (plan.borrow === undefined) return;
  await batch.send({
    from: owner,
    address: market.comptroller,
    abi: comptrollerAbi,
    functionName: "enterMarkets",
    args: [supplied.map(([symbol]) => market.markets[symbol])],
  });
  await batch.send({
    from: owner,
    address: market.markets[plan.borrow.symbol],
    abi: vTokenAbi,
    functionName: "borrow",
    args: [amount(plan.borrow.symbol, plan.borrow.amount)],
  });
};

const setPrice = (
  batch: TxBatch,
  market: CTokenDeployment,
  tokens: Tokens,
  symbol: LendingSymbol,
  usd: number,
) =>
  batch.send({
    from: roleAddress("deployer"),
    address: market.oracle,
    abi: simplePriceOracleAbi,
    functionName: "setDirectPrice",
    args: [tokens[symbol], ctokenOraclePrice(symbol, usd)],
  });

/**
 * Liquidates `compoundLiquidated`: the oracle's ETH price drops to {@link CTOKEN_LIQUIDATION_ETH_USD}, the
 * deployer repays part of the USDC debt with `liquidateBorrow` and seizes cWETH (plus the 8 % incentive),
 * then the price returns to the DEX price so every other wallet's health reads as seeded.
 */
const liquidate = async (batch: TxBatch, market: CTokenDeployment, tokens: Tokens) => {
  const liquidator = roleAddress("deployer");
  await setPrice(batch, market, tokens, "WETH", CTOKEN_LIQUIDATION_ETH_USD);
  await batch.send({
    from: liquidator,
    address: tokens.USDC,
    abi: erc20Abi,
    functionName: "approve",
    args: [market.markets.USDC, maxUint256],
  });
  await batch.send({
    from: liquidator,
    address: market.markets.USDC,
    abi: vTokenAbi,
    functionName: "liquidateBorrow",
    args: [
      roleAddress("compoundLiquidated"),
      amount("USDC", CTOKEN_LIQUIDATION_REPAY_USDC),
      market.markets.WETH,
    ],
  });
  await setPrice(batch, market, tokens, "WETH", openingPriceUsd("WETH"));
};

/** The manifest's lending positions of one plan: a supply per asset supplied, a debt for the borrow. */
export const cTokenPlanPositions = (
  market: CTokenDeployment,
  tokens: Tokens,
  plan: WalletPlan,
): ManifestLendingPosition[] => {
  const position = (symbol: LendingSymbol, side: "supply" | "debt"): ManifestLendingPosition => ({
    kind: "ctoken",
    protocol: market.brand.protocol,
    wallet: manifestRole(plan.role),
    owner: roleAddress(plan.role),
    market: market.comptroller,
    asset: tokens[symbol],
    side,
    purpose: plan.purpose,
  });
  return [
    ...(Object.keys(plan.supply) as LendingSymbol[]).map((symbol) => position(symbol, "supply")),
    ...(plan.borrow === undefined ? [] : [position(plan.borrow.symbol, "debt")]),
  ];
};

/**
 * Opens the positions of {@link CTOKEN_PLAN} in one cToken deployment, in plan order (suppliers first, so
 * borrowers find cash), then liquidates the `liquidated` wallet, all sent into `batch`. Wallets must be
 * funded and impersonated.
 */
export const seedCTokenPositions = async (
  batch: TxBatch,
  market: CTokenDeployment,
  tokens: Tokens,
): Promise<ManifestLendingPosition[]> => {
  for (const plan of CTOKEN_PLAN) await openCTokenPlan(batch, market, tokens, plan);
  await liquidate(batch, market, tokens);
  return CTOKEN_PLAN.flatMap((plan) => cTokenPlanPositions(market, tokens, plan));
};
