import { type Address, encodeDeployData } from "viem";
import type { CompiledContracts } from "../../compileContracts.js";
import { tokenDecimals } from "../../tokenDecimals.js";
import { units } from "../../tokenSpecs.js";
import { type LendingSymbol, openingPriceUsd } from "../openingPrices.js";
import type { TxBatch } from "../txBatch.js";
import { cometAbi, devPriceFeedAbi } from "./cometAbis.js";

/** The base asset and the collateral assets of the devnet's Comet markets. */
export const COMET_BASE = "USDC" satisfies LendingSymbol;
export type CometCollateral = "WETH" | "WBTC";

/** Collateral factors as Comet names them (mainnet cUSDCv3 used similar ones for WETH and WBTC). */
export const COMET_COLLATERAL: Readonly<
  Record<CometCollateral, { borrowCF: number; liquidateCF: number; liquidationFactor: number; cap: number }>
> = {
  WETH: { borrowCF: 0.82, liquidateCF: 0.85, liquidationFactor: 0.93, cap: 100_000 },
  WBTC: { borrowCF: 0.7, liquidateCF: 0.77, liquidationFactor: 0.9, cap: 1_000 },
};

/** One Comet deployment: the market and a price feed per asset. */
export interface CometDeployment {
  readonly protocol: string;
  readonly comet: Address;
  readonly priceFeeds: Readonly<Record<typeof COMET_BASE | CometCollateral, Address>>;
}

const factor = (value: number): bigint => units(value, 18);

/** A Chainlink-style answer: USD with 8 decimals. */
export const feedAnswer = (usd: number): bigint => units(usd, 8);

/**
 * Yearly rates, kinks at 80 % utilization: supply 0 % + 4 % slope (100 % above the kink), borrow 1.5 % +
 * 5 % slope (150 % above). The contract stores them per second, as Comet does.
 */
const RATES = [0.8, 0.04, 1, 0, 0.8, 0.05, 1.5, 0.015].map(factor);

/**
 * Deploys a Comet stand-in (our `Comet.sol`, compiled with the devnet's contracts) with USDC as base asset
 * and WETH and WBTC as collateral, each priced by a `DevPriceFeed` at the DEX opening price. Borrowing
 * needs at least 100 USDC, as on mainnet. Sent into `batch`: the addresses are live once it is mined.
 */
export const deployComet = async (
  batch: TxBatch,
  compiled: CompiledContracts,
  admin: Address,
  protocol: string,
  tokens: Readonly<Record<LendingSymbol, Address>>,
): Promise<CometDeployment> => {
  const feed = async (symbol: LendingSymbol) =>
    batch.deploy(
      admin,
      encodeDeployData({
        abi: devPriceFeedAbi,
        bytecode: compiled.DevPriceFeed!.bytecode,
        args: [`${symbol} / USD`, feedAnswer(openingPriceUsd(symbol))],
      }),
    );
  const priceFeeds = { USDC: await feed("USDC"), WETH: await feed("WETH"), WBTC: await feed("WBTC") };
  const configs = (
    Object.entries(COMET_COLLATERAL) as [CometCollateral, (typeof COMET_COLLATERAL)["WETH"]][]
  ).map(([symbol, c]) => ({
    asset: tokens[symbol],
    priceFeed: priceFeeds[symbol],
    decimals: tokenDecimals(symbol),
    borrowCollateralFactor: factor(c.borrowCF),
    liquidateCollateralFactor: factor(c.liquidateCF),
    liquidationFactor: factor(c.liquidationFactor),
    supplyCap: units(c.cap, tokenDecimals(symbol)),
  }));
  const comet = await batch.deploy(
    admin,
    encodeDeployData({
      abi: cometAbi,
      bytecode: compiled.Comet!.bytecode,
      args: [
        "Compound USDC",
        "cUSDCv3",
        tokens.USDC,
        priceFeeds.USDC,
        units(100, tokenDecimals("USDC")),
        RATES as unknown as readonly [bigint, bigint, bigint, bigint, bigint, bigint, bigint, bigint],
        configs,
      ],
    }),
  );
  return { protocol, comet, priceFeeds };
};
