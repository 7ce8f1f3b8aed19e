import type { Address } from "viem";
import type { ChainClient } from "../ChainClient.js";
import type { DevnetChainSpec } from "../chainSpecs.js";
import type { CompiledContracts } from "../compileContracts.js";
import type { DeployedContracts } from "../deployContracts.js";
import { roleAddress } from "../devAccounts.js";
import { COMET_PLAN } from "./comet/cometPlan.js";
import { type CometDeployment, deployComet } from "./comet/deployComet.js";
import { seedCometPositions } from "./comet/seedCometPositions.js";
import { cometMarket, ctokenMarket } from "./compoundManifest.js";
import { fundCompoundWallets } from "./compoundWallets.js";
import { CTOKEN_PLAN } from "./ctoken/ctokenPlan.js";
import { type CTokenBrand, type CTokenDeployment, deployCTokenMarket } from "./ctoken/deployCTokenMarket.js";
import { seedCTokenPositions } from "./ctoken/seedCTokenPositions.js";
import type { LendingSymbol } from "./openingPrices.js";
import { NO_LENDING, type SeededLending } from "./SeededLending.js";
import { openTxBatch } from "./txBatch.js";

/** The cToken deployment on ethereum: the design's original, reported as `LendingV2`. */
export const CTOKEN_ORIGINAL: CTokenBrand = { protocol: "CompoundV2", name: "Compound", symbol: "c" };

/** The second deployment of the same bytecode on base and optimism, reported as `LendingV2Fork`. */
export const CTOKEN_FORK: CTokenBrand = { protocol: "ForkLend", name: "ForkLend", symbol: "f" };

/** `protocol` of every Comet market (ethereum, base, optimism). */
export const COMET_PROTOCOL = "CompoundV3";

/** Which cToken deployment each chain gets; chains not listed (ink) get no cToken or Comet market. */
const CTOKEN_BRAND_BY_CHAIN: Readonly<Record<number, CTokenBrand>> = {
  1: CTOKEN_ORIGINAL,
  8453: CTOKEN_FORK,
  10: CTOKEN_FORK,
};

/** The chain's cToken and Comet markets in manifest shape, and their deployments (null on a chain without them). */
export interface SeededCompound extends SeededLending {
  readonly deployments: {
    readonly ctoken: CTokenDeployment;
    readonly comet: CometDeployment;
    readonly tokens: Readonly<Record<LendingSymbol, Address>>;
  } | null;
}

/**
 * Deploys a cToken market (the original on ethereum, the fork on base and optimism) and a Comet market on
 * the chains that hold lending positions, and opens the wallets' positions in them, liquidation included.
 * Runs before the history, whose hours of chain time make the interest grow.
 */
export const seedCompoundLending = async (
  client: ChainClient,
  spec: DevnetChainSpec,
  contracts: DeployedContracts,
  compiled: CompiledContracts,
): Promise<SeededCompound> => {
  const brand = CTOKEN_BRAND_BY_CHAIN[spec.chainId];
  if (brand === undefined) return { ...NO_LENDING, deployments: null };
  const deployer = roleAddress("deployer");
  const tokens: Record<LendingSymbol, Address> = {
    WETH: contracts.tokens.WETH,
    USDC: contracts.tokens.USDC,
    WBTC: contracts.tokens.WBTC,
    UNI: contracts.tokens.UNI,
  };
  // Everything goes into one block: deployments, wallets, positions and liquidations (see TxBatch).
  const batch = await openTxBatch(client);
  const ctoken = await deployCTokenMarket(batch, compiled, deployer, brand, tokens);
  const comet = await deployComet(batch, compiled, deployer, COMET_PROTOCOL, tokens);
  const plans = [CTOKEN_PLAN, COMET_PLAN];
  const stopImpersonating = await fundCompoundWallets(client, batch, tokens, deployer, plans);
  try {
    const ctokenPositions = await seedCTokenPositions(batch, ctoken, tokens);
    const cometPositions = await seedCometPositions(batch, comet, tokens);
    await batch.mine();
    return {
      deployments: { ctoken, comet, tokens },
      markets: [ctokenMarket(ctoken, tokens), cometMarket(comet, tokens)],
      positions: [...ctokenPositions, ...cometPositions],
    };
  } finally {
    await stopImpersonating();
  }
};
