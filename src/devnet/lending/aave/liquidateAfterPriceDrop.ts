import { type Address, encodeDeployData } from "viem";
import { roleAddress } from "../../devAccounts.js";
import { tokenDecimals } from "../../tokenDecimals.js";
import { units } from "../../tokenSpecs.js";
import type { TxBatch } from "../txBatch.js";
import type { AaveDeployment } from "./AaveDeployment.js";
import { aaveOracleAbi, aavePoolAbi, mockAggregatorAbi } from "./aaveAbis.js";
import { aaveBytecode } from "./aaveArtifacts.js";
import { AAVE_RESERVES, priceInEthWei } from "./aaveReserves.js";
import { aaveSend } from "./aaveTransactions.js";

/** How far the collateral's oracle price drops: enough to take the `liquidated` wallet's health under 1. */
const PRICE_DROP_PERCENT = 20n;
/** USDC the liquidator repays: half the wallet's debt (V2's close factor), so a position is left. */
const DEBT_TO_COVER_USDC = 2_000;

/**
 * Queues the liquidation of the `liquidated` wallet through the market's own oracle: the pool admin points the oracle's
 * WBTC source at a new mock aggregator 20 % lower (`AssetSourceUpdated`), the deployer calls
 * `liquidationCall` as liquidator (repays USDC, receives WBTC plus the bonus), and the original source is put back so
 * every other wallet is priced as before. The wallet keeps the rest of its collateral and debt.
 */
export const liquidateAfterPriceDrop = async (
  batch: TxBatch,
  market: AaveDeployment,
  deployer: Address,
): Promise<void> => {
  const wbtc = market.reserves.WBTC;
  if (wbtc.aggregator === null) throw new Error("WBTC has no price source in the Aave market");
  const usdE8 = (AAVE_RESERVES.WBTC.usdE8 * (100n - PRICE_DROP_PERCENT)) / 100n;
  const dropped = await batch.deploy(
    deployer,
    encodeDeployData({
      abi: mockAggregatorAbi,
      bytecode: aaveBytecode(market.version === "v2" ? "V2MockAggregator" : "V3MockAggregator"),
      args: [market.version === "v2" ? priceInEthWei(usdE8) : usdE8],
    }),
  );
  const setSource = (source: Address) =>
    aaveSend(batch, {
      from: deployer,
      address: market.oracle,
      abi: aaveOracleAbi,
      functionName: "setAssetSources",
      args: [[wbtc.asset], [source]],
    });
  await setSource(dropped);
  await aaveSend(batch, {
    from: deployer,
    address: market.pool,
    abi: aavePoolAbi,
    functionName: "liquidationCall",
    args: [
      wbtc.asset,
      market.reserves.USDC.asset,
      roleAddress("aaveLiquidated"),
      units(DEBT_TO_COVER_USDC, tokenDecimals("USDC")),
      false,
    ],
  });
  await setSource(wbtc.aggregator);
};
