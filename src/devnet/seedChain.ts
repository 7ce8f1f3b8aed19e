import { rename } from "node:fs/promises";
import { startAnvil } from "./AnvilProcess.js";
import { seedAnvilArgs } from "./anvilArgs.js";
import { chainClient } from "./ChainClient.js";
import type { SeededChain } from "./chainManifest.js";
import type { DevnetChainSpec } from "./chainSpecs.js";
import type { CompiledContracts } from "./compileContracts.js";
import { approveAllAmms, createMarkets } from "./createMarkets.js";
import { deployContracts } from "./deployContracts.js";
import { roleAddress } from "./devAccounts.js";
import { seedEveryType, withEveryTypeHolder } from "./everyType/seedEveryType.js";
import { seedAave } from "./lending/aave/seedAave.js";
import { accrueCompoundInterest } from "./lending/accrueCompoundInterest.js";
import { mergeLending } from "./lending/SeededLending.js";
import { seedCompoundLending } from "./lending/seedCompoundLending.js";
import { seedPendle } from "./pendle/seedPendle.js";
import { seedLiquidityPositions } from "./positions/seedLiquidityPositions.js";
import { HISTORY_HOURS_BEFORE_END, seedHistory } from "./seedHistory.js";
import { seedPagingTokens } from "./seedPagingTokens.js";
import type { SeedStep } from "./seedProgress.js";
import { seedWallets } from "./seedWallets.js";
import { seedVaultsAndRestaking } from "./vaults/seedVaultsAndRestaking.js";

/** Chain time before the end of seeding at which the genesis block is dated: history needs 31 days. */
const GENESIS_AGE_SECONDS = 32 * 24 * 3600;

/** Ether the deployer wraps into WETH for markets and wallets (anvil gives it 10,000). */
const DEPLOYER_WETH = 8_000;

/**
 * Seeds one chain on a fresh anvil dated 32 days before `endTimestamp`: contracts, markets, wallets, a
 * month of price history and (on one chain) the paging tokens; a last empty block lands at `endTimestamp`.
 * Stopping the node writes its state dump to `dumpPath` (via a temporary file, so a crash mid-seed never
 * leaves a dump that looks complete).
 */
export const seedChain = async (options: {
  readonly spec: DevnetChainSpec;
  readonly compiled: CompiledContracts;
  readonly dumpPath: string;
  readonly endTimestamp: number;
  readonly log: (line: string) => void;
  /** Told as each step begins (see seedProgress.ts). */
  readonly progress?: (step: SeedStep) => void;
}): Promise<SeededChain> => {
  const { spec, endTimestamp, log } = options;
  const tmpDump = `${options.dumpPath}.tmp`;
  const anvil = await startAnvil({
    chainId: spec.chainId,
    args: seedAnvilArgs({
      genesisTimestamp: endTimestamp - GENESIS_AGE_SECONDS,
      keptStates: HISTORY_HOURS_BEFORE_END.length + 8,
      dumpPath: tmpDump,
    }),
    log,
  });
  try {
    const client = chainClient(spec.chainId, spec.name, anvil.rpcUrl);
    const deployer = roleAddress("deployer");
    options.progress?.("deploying protocols");
    const contracts = await deployContracts(client, options.compiled, deployer, DEPLOYER_WETH);
    await approveAllAmms(client, contracts, deployer);
    options.progress?.("creating markets");
    const pools = await createMarkets(client, contracts, deployer);
    options.progress?.("funding wallets");
    const positions = await seedWallets(client, contracts, pools);
    options.progress?.("opening liquidity positions");
    const seededLiquidity = await seedLiquidityPositions(client, spec, contracts, options.compiled, pools);
    options.progress?.("opening lending positions");
    // Every lending seed adds its markets and positions here, before the history, so interest accrues.
    const aave = await seedAave(client, spec, contracts);
    const compound = await seedCompoundLending(client, spec, contracts, options.compiled);
    options.progress?.("opening vault and restaking positions");
    const seededVaults = await seedVaultsAndRestaking(client, contracts, options.compiled);
    // Before the history: the month it mines passes the `past` expiry and lets the YT holders' interest stand.
    options.progress?.("opening yield-splitting positions");
    const pendle = await seedPendle(client, contracts, options.compiled, [
      roleAddress("pendleHolder"),
      roleAddress("everyType"),
    ]);
    options.progress?.("opening every position type for one wallet");
    const everyType = await seedEveryType({
      client,
      spec,
      contracts,
      pools,
      liquidity: seededLiquidity,
      aave,
      compound,
      vaults: seededVaults,
    });
    const liquidity = {
      ...seededLiquidity,
      positions: [...seededLiquidity.positions, ...everyType.liquidity],
    };
    const lending = mergeLending(aave, compound, { markets: [], positions: everyType.lending });
    const vaults = withEveryTypeHolder(seededVaults, everyType);
    options.progress?.("mining history");
    await seedHistory(client, contracts, pools, endTimestamp - 600);
    if (spec.pagingWallet) await seedPagingTokens(client, contracts, endTimestamp - 300);
    await accrueCompoundInterest(client, lending, endTimestamp - 60);
    await client.rpc("evm_mine", [{ timestamp: endTimestamp, blocks: 1 }]);
    const head = await client.publicClient.getBlock();
    await anvil.stop();
    await rename(tmpDump, options.dumpPath);
    options.progress?.("done");
    return {
      spec,
      contracts,
      pools,
      positions,
      liquidity,
      lending,
      vaults,
      pendle,
      headBlock: Number(head.number),
      headTimestamp: Number(head.timestamp),
    };
  } finally {
    await anvil.stop();
  }
};
