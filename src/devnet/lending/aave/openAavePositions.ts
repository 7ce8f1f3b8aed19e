import { type Address, maxUint256 } from "viem";
import { erc20Abi } from "../../abis.js";
import { tokenDecimals } from "../../tokenDecimals.js";
import { units } from "../../tokenSpecs.js";
import type { TxBatch } from "../txBatch.js";
import type { AaveDeployment } from "./AaveDeployment.js";
import { aavePoolAbi, VARIABLE_RATE_MODE } from "./aaveAbis.js";
import type { AaveReserveSymbol } from "./aaveReserves.js";
import { aaveSend } from "./aaveTransactions.js";
import type { AaveAmounts } from "./aaveWalletPlans.js";

const entries = (amounts: AaveAmounts) => Object.entries(amounts) as [AaveReserveSymbol, number][];

/**
 * Queues the supply of `amounts` from `from` into the market (approving the pool first): V2's `deposit`, V3's
 * `supply`. The first supply of an asset with a loan-to-value turns it on as collateral.
 */
export const supplyToAave = async (
  batch: TxBatch,
  market: AaveDeployment,
  from: Address,
  amounts: AaveAmounts,
): Promise<void> => {
  for (const [symbol, amount] of entries(amounts)) {
    const asset = market.reserves[symbol].asset;
    await aaveSend(batch, {
      from,
      address: asset,
      abi: erc20Abi,
      functionName: "approve",
      args: [market.pool, maxUint256],
    });
    await aaveSend(batch, {
      from,
      address: market.pool,
      abi: aavePoolAbi,
      functionName: market.version === "v2" ? "deposit" : "supply",
      args: [asset, units(amount, tokenDecimals(symbol)), from, 0],
    });
  }
};

/** Queues variable-rate borrows of `amounts` for `from` (the variable debt token mints to it). */
export const borrowFromAave = async (
  batch: TxBatch,
  market: AaveDeployment,
  from: Address,
  amounts: AaveAmounts,
): Promise<void> => {
  for (const [symbol, amount] of entries(amounts))
    await aaveSend(batch, {
      from,
      address: market.pool,
      abi: aavePoolAbi,
      functionName: "borrow",
      args: [
        market.reserves[symbol].asset,
        units(amount, tokenDecimals(symbol)),
        VARIABLE_RATE_MODE,
        0,
        from,
      ],
    });
};
