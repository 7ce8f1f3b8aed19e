import { type Address, type ContractFunctionName, encodeDeployData, parseAbi } from "viem";
import type { WriteRequest } from "../../ChainClient.js";
import type { CompiledContracts } from "../../compileContracts.js";
import { protocolBytecode } from "../../protocolArtifacts.js";
import { tokenDecimals } from "../../tokenDecimals.js";
import { units } from "../../tokenSpecs.js";
import { type LendingSymbol, openingPriceUsd } from "../openingPrices.js";
import type { TxBatch } from "../txBatch.js";
import { comptrollerAbi, jumpRateModelAbi, simplePriceOracleAbi, vTokenAbi } from "./ctokenAbis.js";

/** Names of one deployment of the cToken design: the protocol and its token prefixes. */
export interface CTokenBrand {
  /** `protocol` in the registry and the manifest, e.g. `CompoundV2`. */
  readonly protocol: string;
  /** Token name prefix: "Compound" gives "Compound USDC". */
  readonly name: string;
  /** Token symbol prefix: "c" gives "cUSDC". */
  readonly symbol: string;
}

/** One deployment: its comptroller (the Unitroller proxy), its other contracts and a market per asset. */
export interface CTokenDeployment {
  readonly brand: CTokenBrand;
  readonly comptroller: Address;
  readonly comptrollerImplementation: Address;
  readonly comptrollerLens: Address;
  readonly accessControl: Address;
  readonly oracle: Address;
  readonly rateModel: Address;
  readonly markets: Readonly<Record<LendingSymbol, Address>>;
}

/** Listed assets with their collateral factors (Compound V2's were 75-85 % for majors, lower for others). */
export const CTOKEN_COLLATERAL_FACTORS: Readonly<Record<LendingSymbol, number>> = {
  WETH: 0.8,
  USDC: 0.85,
  WBTC: 0.7,
  UNI: 0.6,
};

const E18 = 10n ** 18n;
const pct = (percent: number): bigint => (BigInt(Math.round(percent * 100)) * E18) / 10_000n;

/**
 * The cToken exchange rate starts at 0.02 underlying per cToken, scaled by 1e18 and by the decimals
 * between the underlying and the cToken's 8, as Compound V2 deployed its markets.
 */
const initialExchangeRate = (decimals: number): bigint => 2n * 10n ** BigInt(decimals + 8);

/** The oracle's price format: USD per whole token scaled by 1e(36 - decimals). */
export const ctokenOraclePrice = (symbol: LendingSymbol, usd: number): bigint =>
  units(usd, 36 - tokenDecimals(symbol));

const noArgs = parseAbi(["constructor()"]);

type ComptrollerWrite = ContractFunctionName<typeof comptrollerAbi, "nonpayable">;

const deployComptroller = async (batch: TxBatch, compiled: CompiledContracts, admin: Address) => {
  const accessControl = await batch.deploy(
    admin,
    encodeDeployData({
      abi: noArgs,
      bytecode: compiled.AllowAllAccessControl!.bytecode,
      args: [],
    }),
  );
  const implementation = await batch.deploy(admin, protocolBytecode("VenusComptroller"));
  const comptroller = await batch.deploy(admin, protocolBytecode("VenusUnitroller"));
  const lens = await batch.deploy(admin, protocolBytecode("VenusComptrollerLens"));
  const oracle = await batch.deploy(admin, protocolBytecode("VenusSimplePriceOracle"));
  // One signature for the many admin calls; viem cannot tie `args` to a name that is not a literal.
  const call = (address: Address, functionName: ComptrollerWrite, args: readonly unknown[]) =>
    batch.send({ from: admin, address, abi: comptrollerAbi, functionName, args } as WriteRequest<
      typeof comptrollerAbi,
      ComptrollerWrite
    >);
  await call(comptroller, "_setPendingImplementation", [implementation]);
  await call(implementation, "_become", [comptroller]);
  await call(comptroller, "_setAccessControl", [accessControl]);
  await call(comptroller, "_setComptrollerLens", [lens]);
  await call(comptroller, "_setPriceOracle", [oracle]);
  await call(comptroller, "_setCloseFactor", [pct(50)]);
  await call(comptroller, "_setLiquidationIncentive", [pct(108)]);
  return { accessControl, implementation, comptroller, lens, oracle, call };
};

/**
 * Deploys the cToken design from `@venusprotocol/venus-protocol` 0.7.0 following Venus' deployment: an
 * access-control manager (ours: allows everyone), the Comptroller behind a Unitroller, the lens it
 * computes liquidity with, a SimplePriceOracle at the DEX opening prices, one JumpRateModel (2 % base,
 * 10 % slope up to 80 % utilization, 100 % above) and a VBep20Immutable market per asset with a 10 %
 * reserve factor, listed, given its collateral factor and a supply cap. Sent into `batch`: the addresses
 * returned are live once the batch is mined.
 */
export const deployCTokenMarket = async (
  batch: TxBatch,
  compiled: CompiledContracts,
  admin: Address,
  brand: CTokenBrand,
  tokens: Readonly<Record<LendingSymbol, Address>>,
): Promise<CTokenDeployment> => {
  const { accessControl, implementation, comptroller, lens, oracle, call } = await deployComptroller(
    batch,
    compiled,
    admin,
  );
  const rateModel = await batch.deploy(
    admin,
    encodeDeployData({
      abi: jumpRateModelAbi,
      bytecode: protocolBytecode("VenusJumpRateModel"),
      args: [pct(2), pct(10), pct(100), pct(80)],
    }),
  );
  const markets: Partial<Record<LendingSymbol, Address>> = {};
  for (const symbol of Object.keys(CTOKEN_COLLATERAL_FACTORS) as LendingSymbol[]) {
    const decimals = tokenDecimals(symbol);
    const market = await batch.deploy(
      admin,
      encodeDeployData({
        abi: vTokenAbi,
        bytecode: protocolBytecode("VenusVBep20Immutable"),
        args: [
          tokens[symbol],
          comptroller,
          rateModel,
          initialExchangeRate(decimals),
          `${brand.name} ${symbol}`,
          `${brand.symbol}${symbol}`,
          8,
          admin,
        ],
      }),
    );
    await batch.send({
      from: admin,
      address: oracle,
      abi: simplePriceOracleAbi,
      functionName: "setDirectPrice",
      args: [tokens[symbol], ctokenOraclePrice(symbol, openingPriceUsd(symbol))],
    });
    await batch.send({
      from: admin,
      address: market,
      abi: vTokenAbi,
      functionName: "_setReserveFactor",
      args: [pct(10)],
    });
    await call(comptroller, "_supportMarket", [market]);
    await call(comptroller, "_setCollateralFactor", [market, pct(CTOKEN_COLLATERAL_FACTORS[symbol] * 100)]);
    markets[symbol] = market;
  }
  const listed = Object.values(markets) as Address[];
  // A supply cap of 0 forbids minting in Venus: cap each market far above what the devnet supplies.
  await call(comptroller, "_setMarketSupplyCaps", [listed, listed.map(() => 10n ** 40n)]);
  return {
    brand,
    comptroller,
    comptrollerImplementation: implementation,
    comptrollerLens: lens,
    accessControl,
    oracle,
    rateModel,
    markets: markets as Record<LendingSymbol, Address>,
  };
};
