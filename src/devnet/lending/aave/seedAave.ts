import type { ChainClient } from "../../ChainClient.js";
import type { DevnetChainSpec } from "../../chainSpecs.js";
import type { DeployedContracts } from "../../deployContracts.js";
import { roleAddress } from "../../devAccounts.js";
import { deployAaveV2 } from "../aaveV2/deployAaveV2.js";
import { deployAaveV3 } from "../aaveV3/deployAaveV3.js";
import { NO_LENDING, type SeededLending } from "../SeededLending.js";
import { openTxBatch, type TxBatch } from "../txBatch.js";
import type { AaveDeployment, AaveVersion, MinedAaveMarket } from "./AaveDeployment.js";
import { aaveManifestMarket, aaveManifestPositions } from "./aaveManifest.js";
import { AAVE_MARKET_LIQUIDITY, AAVE_WALLET_PLANS } from "./aaveWalletPlans.js";
import { fundAaveWallets } from "./fundAaveWallets.js";
import { liquidateAfterPriceDrop } from "./liquidateAfterPriceDrop.js";
import { borrowFromAave, supplyToAave } from "./openAavePositions.js";
import { readMinedAaveMarket } from "./readMinedAaveMarket.js";

/** Aave markets per chain id, as the positions issue lists them: V2 on ethereum, V3 on ethereum, base and optimism. */
const AAVE_MARKETS: Readonly<Record<number, readonly AaveVersion[]>> = {
  1: ["v2", "v3"],
  8453: ["v3"],
  10: ["v3"],
};

/** How Aave names a V3 market's tokens per network (`aEthWETH`, `Aave Base WETH`). */
const V3_NETWORK_NAMES: Readonly<Record<number, { networkName: string; tokenPrefix: string }>> = {
  1: { networkName: "Ethereum", tokenPrefix: "Eth" },
  8453: { networkName: "Base", tokenPrefix: "Bas" },
  10: { networkName: "Optimism", tokenPrefix: "Opt" },
};

const deployMarket = (
  batch: TxBatch,
  spec: DevnetChainSpec,
  contracts: DeployedContracts,
  version: AaveVersion,
): Promise<AaveDeployment> => {
  const deployer = roleAddress("deployer");
  if (version === "v2") return deployAaveV2(batch, deployer, contracts.tokens);
  const names = V3_NETWORK_NAMES[spec.chainId] ?? { networkName: spec.name, tokenPrefix: spec.name };
  return deployAaveV3(batch, deployer, contracts.tokens, {
    marketId: `Aave ${names.networkName} Market`,
    ...names,
  });
};

/** The chain's Aave markets in manifest shape, and their deployments, for seeds that open more positions in them. */
export interface SeededAave extends SeededLending {
  readonly deployments: readonly AaveDeployment[];
}

/**
 * Deploys the chain's Aave markets from the protocols' npm artifacts and opens the seeded wallets'
 * positions in each (docs/devnet.md, "Lending markets"): the deployer supplies liquidity, every wallet
 * plan supplies and borrows, then the `liquidated` wallet is liquidated after a price drop. All of it is
 * one block (see TxBatch), mined in the deployment phase: the history that follows advances time by a
 * month, so interest accrues.
 */
export const seedAave = async (
  client: ChainClient,
  spec: DevnetChainSpec,
  contracts: DeployedContracts,
): Promise<SeededAave> => {
  const versions = AAVE_MARKETS[spec.chainId] ?? [];
  if (versions.length === 0) return { ...NO_LENDING, deployments: [] };
  const deployer = roleAddress("deployer");
  const batch = await openTxBatch(client);
  const stopImpersonating = await fundAaveWallets(
    client,
    batch,
    contracts,
    deployer,
    AAVE_WALLET_PLANS,
    versions.length,
  );
  try {
    const deployments: AaveDeployment[] = [];
    for (const version of versions) {
      const market = await deployMarket(batch, spec, contracts, version);
      await supplyToAave(batch, market, deployer, AAVE_MARKET_LIQUIDITY);
      for (const plan of AAVE_WALLET_PLANS) {
        await supplyToAave(batch, market, roleAddress(plan.role), plan.supply);
        await borrowFromAave(batch, market, roleAddress(plan.role), plan.borrow);
      }
      await liquidateAfterPriceDrop(batch, market, deployer);
      deployments.push(market);
    }
    await batch.mine();
    const markets: MinedAaveMarket[] = [];
    for (const deployment of deployments)
      markets.push({ deployment, tokens: await readMinedAaveMarket(client, deployment) });
    return {
      deployments,
      markets: markets.map(aaveManifestMarket),
      positions: deployments.flatMap((market) =>
        AAVE_WALLET_PLANS.flatMap((plan) => aaveManifestPositions(market, plan)),
      ),
    };
  } finally {
    await stopImpersonating();
  }
};
