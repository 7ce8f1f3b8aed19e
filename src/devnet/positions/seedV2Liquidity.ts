import type { Address } from "viem";
import { approveMax, v2AddLiquidity } from "../ammActions.js";
import type { ChainClient } from "../ChainClient.js";
import type { DeployedContracts } from "../deployContracts.js";
import { roleAddress, type WalletRole } from "../devAccounts.js";
import type { SeededPool } from "../SeededPool.js";
import { units } from "../tokenSpecs.js";
import type { SeededLiquidityPosition } from "./SeededLiquidityPosition.js";

/**
 * Gives `holder` LP tokens of the WETH/USDC pair of Uniswap V2 and of its fork (the same bytecode under
 * a second factory, `SushiSwapV2`): 2 WETH and 6,000 USDC each, paid by `payer` (the holder itself unless
 * told; another payer must have approved both routers).
 */
export const seedV2Liquidity = async (
  client: ChainClient,
  contracts: DeployedContracts,
  pools: readonly SeededPool[],
  holder: WalletRole = "liquidity",
  payer: Address = roleAddress(holder),
): Promise<SeededLiquidityPosition[]> => {
  const owner = roleAddress(holder);
  const { WETH: weth, USDC: usdc } = contracts.tokens;
  const pairs = [
    { protocol: "UniswapV2", purpose: "weth_usdc_deep", router: contracts.uniswapV2.router, as: "v2_lp" },
    {
      protocol: "SushiSwapV2",
      purpose: "fork_weth_usdc",
      router: contracts.sushiswapV2.router,
      as: "fork_v2_lp",
    },
  ] as const;
  const positions: SeededLiquidityPosition[] = [];
  for (const { protocol, purpose, router, as } of pairs) {
    const pair = pools.find((p) => p.protocol === protocol && p.purpose === purpose)?.address;
    if (!pair) throw new Error(`no ${protocol} WETH/USDC pair`);
    // A payer other than the holder approved the routers already (the deployer, when the markets were created).
    if (payer === owner) for (const token of [weth, usdc]) await approveMax(client, owner, token, router);
    await v2AddLiquidity(client, {
      from: payer,
      router,
      tokenA: weth,
      tokenB: usdc,
      amountA: units(2, 18),
      amountB: units(6_000, 6),
      to: owner,
    });
    positions.push({
      kind: "v2",
      protocol,
      wallet: holder,
      tokenId: null,
      pool: pair,
      positionManager: null,
      tickLower: null,
      tickUpper: null,
      purpose: as,
    });
  }
  return positions;
};
