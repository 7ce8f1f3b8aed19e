import { type Address, encodeDeployData, zeroAddress } from "viem";
import { tokenDecimals } from "../../tokenDecimals.js";
import { type AaveContract, aaveBytecode } from "../aave/aaveArtifacts.js";
import { AAVE_RESERVE_SYMBOLS, type AaveReserveSymbol, rateCurveArgs } from "../aave/aaveReserves.js";
import { aaveSend, INIT_RESERVES_GAS } from "../aave/aaveTransactions.js";
import { configureAsCollateral } from "../aave/configureAaveReserve.js";
import type { TxBatch } from "../txBatch.js";
import { v3ConfiguratorAbi, v3RateStrategyAbi, v3SingleAddressConstructorAbi } from "./aaveV3Abis.js";

/** The parts of a V3 market that listing reserves needs, and how its tokens are named. */
export interface AaveV3Listing {
  readonly provider: Address;
  readonly pool: Address;
  readonly configurator: Address;
  readonly tokens: Readonly<Record<AaveReserveSymbol, Address>>;
  /** Aave's per-network symbol prefix: `Eth` (aEthWETH), `Bas`, `Opt`. */
  readonly tokenPrefix: string;
  /** The network in token names: `Aave Ethereum WETH`. */
  readonly networkName: string;
}

const RAY = 10n ** 27n;

/**
 * Queues the listing of every devnet reserve on a V3 market in one `initReserves` call: one AToken,
 * StableDebtToken and VariableDebtToken implementation serve every reserve (each reserve gets its own
 * proxies, named as Aave names them), one rate strategy too. Then collateral parameters and borrowing per
 * reserve. The treasury is the deployer; no incentives controller.
 */
export const listAaveV3Reserves = async (
  batch: TxBatch,
  deployer: Address,
  listing: AaveV3Listing,
): Promise<void> => {
  const { pool, configurator, tokens, tokenPrefix, networkName } = listing;
  const implementation = (name: AaveContract) =>
    batch.deploy(
      deployer,
      encodeDeployData({ abi: v3SingleAddressConstructorAbi, bytecode: aaveBytecode(name), args: [pool] }),
    );
  const aTokenImpl = await implementation("V3AToken");
  const stableDebtTokenImpl = await implementation("V3StableDebtToken");
  const variableDebtTokenImpl = await implementation("V3VariableDebtToken");
  const strategy = await batch.deploy(
    deployer,
    encodeDeployData({
      abi: v3RateStrategyAbi,
      bytecode: aaveBytecode("V3RateStrategy"),
      // Stable borrowing stays disabled; its offsets are Aave's usual 2 %, 5 % and 20 %.
      args: [listing.provider, ...rateCurveArgs(), (2n * RAY) / 100n, (5n * RAY) / 100n, (20n * RAY) / 100n],
    }),
  );
  const onConfigurator = { from: deployer, address: configurator, abi: v3ConfiguratorAbi } as const;
  await aaveSend(batch, {
    ...onConfigurator,
    functionName: "initReserves",
    gas: INIT_RESERVES_GAS,
    args: [
      AAVE_RESERVE_SYMBOLS.map((symbol) => ({
        aTokenImpl,
        stableDebtTokenImpl,
        variableDebtTokenImpl,
        underlyingAssetDecimals: tokenDecimals(symbol),
        interestRateStrategyAddress: strategy,
        underlyingAsset: tokens[symbol],
        treasury: deployer,
        incentivesController: zeroAddress,
        aTokenName: `Aave ${networkName} ${symbol}`,
        aTokenSymbol: `a${tokenPrefix}${symbol}`,
        variableDebtTokenName: `Aave ${networkName} Variable Debt ${symbol}`,
        variableDebtTokenSymbol: `variableDebt${tokenPrefix}${symbol}`,
        stableDebtTokenName: `Aave ${networkName} Stable Debt ${symbol}`,
        stableDebtTokenSymbol: `stableDebt${tokenPrefix}${symbol}`,
        params: "0x" as const,
      })),
    ],
  });
  for (const symbol of AAVE_RESERVE_SYMBOLS) {
    await configureAsCollateral(batch, deployer, configurator, symbol, tokens[symbol]);
    await aaveSend(batch, {
      ...onConfigurator,
      functionName: "setReserveBorrowing",
      args: [tokens[symbol], true],
    });
  }
};
