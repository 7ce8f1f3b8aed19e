import type { Address } from "viem";
import { mintAlgebraPosition } from "../algebra/seedAlgebraPositions.js";
import { approveMax } from "../ammActions.js";
import { roleAddress } from "../devAccounts.js";
import { aaveManifestPositions } from "../lending/aave/aaveManifest.js";
import type { AaveWalletPlan } from "../lending/aave/aaveWalletPlans.js";
import { fundAaveWallets } from "../lending/aave/fundAaveWallets.js";
import { borrowFromAave, supplyToAave } from "../lending/aave/openAavePositions.js";
import { cometPlanPositions, openCometPlan } from "../lending/comet/seedCometPositions.js";
import type { CompoundRole, WalletPlan } from "../lending/compoundPlan.js";
import { fundCompoundWallets } from "../lending/compoundWallets.js";
import { cTokenPlanPositions, openCTokenPlan } from "../lending/ctoken/seedCTokenPositions.js";
import { seedV2Liquidity } from "../positions/seedV2Liquidity.js";
import { mintV3Position } from "../positions/seedV3Positions.js";
import { mintV4Position, nativeEthPool } from "../positions/seedV4Positions.js";
import { tokenDecimals } from "../tokenDecimals.js";
import { units } from "../tokenSpecs.js";
import { depositIntoStrategyFor } from "../vaults/seedRestaking.js";
import { depositInVault } from "../vaults/seedVaults.js";
import type { EveryTypeStep } from "./EveryTypeStep.js";

const deployer = () => roleAddress("deployer");

/** What the holder supplies and borrows in each lending market: 2 WETH of collateral, 1,000 USDC of debt. */
const COLLATERAL_WETH = 2;
const DEBT_USDC = 1_000;

/** The compound plan of the holder: WETH collateral, a USDC borrow (health well above 1). */
const compoundPlan = (holder: CompoundRole): WalletPlan => ({
  role: holder,
  purpose: "every_type",
  supply: { WETH: COLLATERAL_WETH },
  borrow: { symbol: "USDC", amount: DEBT_USDC },
});

/**
 * One position of every type the devnet deploys, each opened for a holder in a market an earlier seed
 * deployed (docs/devnet.md, "Every position type"), through the seeds' own functions. The deployer pays
 * for the liquidity positions (it approved every AMM when the markets were created); the holder supplies
 * and borrows itself. A new position type is one more entry.
 */
export const EVERY_TYPE_STEPS: readonly EveryTypeStep[] = [
  {
    types: ["AmmV2"],
    what: "LP tokens of the Uniswap V2 and SushiSwap V2 WETH/USDC pairs",
    phase: "mined",
    open: async ({ client, contracts, pools }, holder) => ({
      liquidity: (await seedV2Liquidity(client, contracts, pools, holder, deployer())).map((p) => ({
        ...p,
        purpose: "every_type" as const,
      })),
    }),
  },
  {
    types: ["Nft"],
    what: "a Uniswap V3 NFT in range in the positions' WETH/USDC pool",
    phase: "mined",
    open: async ({ client, contracts, liquidity }, holder) => {
      const pool = liquidity.positions.find((p) => p.kind === "v3")?.pool;
      if (pool === undefined) return {};
      const position = await mintV3Position(client, contracts, {
        pool: pool as Address,
        payer: deployer(),
        holder,
        lowerOffset: -1200,
        upperOffset: 1200,
        purpose: "every_type",
      });
      return { liquidity: [position] };
    },
  },
  {
    types: ["Nft"],
    what: "an Algebra NFT over the range of the seeded in-range Algebra position (where Algebra is deployed)",
    phase: "mined",
    open: async ({ client, contracts, liquidity }, holder) => {
      const seeded = liquidity.positions.find((p) => p.kind === "algebra");
      const manager = liquidity.contracts.algebra_position_manager;
      if (seeded === undefined || manager === undefined) return {};
      for (const token of [contracts.tokens.WETH, contracts.tokens.USDC])
        await approveMax(client, deployer(), token, manager);
      const position = await mintAlgebraPosition(client, contracts, manager, {
        pool: seeded.pool as Address,
        range: { tickLower: seeded.tickLower!, tickUpper: seeded.tickUpper! },
        payer: deployer(),
        holder,
        purpose: "every_type",
      });
      return { liquidity: [position] };
    },
  },
  {
    types: ["NftV4"],
    what: "a Uniswap V4 NFT in the native-ETH/USDC pool",
    phase: "mined",
    open: async ({ client, contracts, liquidity }, holder) => {
      if (!liquidity.positions.some((p) => p.kind === "v4")) return {};
      const position = await mintV4Position(client, contracts, {
        pool: nativeEthPool(contracts),
        payer: deployer(),
        holder,
        halfWidth: 1200,
        ether: 1,
        purpose: "every_type",
      });
      return { liquidity: [position] };
    },
  },
  {
    types: ["Tokenized"],
    what: "WETH supplied and USDC borrowed in every Aave market (V2 and V3 on ethereum, V3 elsewhere)",
    phase: "batched",
    open: async ({ client, contracts, aave }, holder, batch) => {
      if (aave.deployments.length === 0) return {};
      const plan: AaveWalletPlan = {
        role: holder,
        purpose: "every_type",
        supply: { WETH: COLLATERAL_WETH },
        borrow: { USDC: DEBT_USDC },
      };
      await fundAaveWallets(client, batch, contracts, deployer(), [plan], aave.deployments.length);
      for (const market of aave.deployments) {
        await supplyToAave(batch, market, roleAddress(holder), plan.supply);
        await borrowFromAave(batch, market, roleAddress(holder), plan.borrow);
      }
      return { lending: aave.deployments.flatMap((market) => aaveManifestPositions(market, plan)) };
    },
  },
  {
    types: ["LendingV2", "LendingV2Fork"],
    what: "WETH supplied and USDC borrowed in the cToken market (the original on ethereum, the fork elsewhere)",
    phase: "batched",
    open: async ({ client, compound }, holder, batch) => {
      if (compound.deployments === null) return {};
      const { ctoken, tokens } = compound.deployments;
      const plan = compoundPlan(holder as CompoundRole);
      await fundCompoundWallets(client, batch, tokens, deployer(), [[plan]]);
      await openCTokenPlan(batch, ctoken, tokens, plan);
      return { lending: cTokenPlanPositions(ctoken, tokens, plan) };
    },
  },
  {
    types: ["LendingV3"],
    what: "WETH collateral and a USDC borrow in the Comet market",
    phase: "batched",
    open: async ({ client, compound }, holder, batch) => {
      if (compound.deployments === null) return {};
      const { comet, tokens } = compound.deployments;
      const plan = compoundPlan(holder as CompoundRole);
      await fundCompoundWallets(client, batch, tokens, deployer(), [[plan]]);
      await openCometPlan(batch, comet, tokens, plan);
      return { lending: cometPlanPositions(comet, tokens, plan) };
    },
  },
  {
    types: ["Erc4626"],
    what: "shares of the USDC vault, deposited by the deployer for the holder",
    phase: "batched",
    open: async ({ vaults }, holder, batch) => {
      const vault = vaults.vaults.find((v) => v.purpose === "usdc");
      if (vault === undefined) return {};
      await depositInVault(
        batch,
        deployer(),
        vault.address as Address,
        units(1_000, tokenDecimals("USDC")),
        roleAddress(holder),
      );
      return { vaults: [vault.address] };
    },
  },
  {
    types: ["RestakeStrategy"],
    what: "a WETH deposit into the WETH strategy of the restaking stand-ins (ethereum only), not delegated",
    phase: "batched",
    open: async ({ vaults }, holder, batch) => {
      const strategy = vaults.restaking?.strategies.find((s) => s.symbol === "WETH");
      if (vaults.restaking == null || strategy === undefined) return {};
      await depositIntoStrategyFor(batch, {
        funder: deployer(),
        staker: roleAddress(holder),
        manager: vaults.restaking.strategy_manager as Address,
        strategy: strategy.address as Address,
        underlying: strategy.underlying as Address,
        amount: units(1, tokenDecimals("WETH")),
      });
      return {
        restakeDeposits: [{ staker: roleAddress(holder), strategy: strategy.address, operator: null }],
      };
    },
  },
];
