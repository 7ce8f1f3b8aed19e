import type { Address, Hash } from "viem";
import { prng } from "../lib/prng.js";
import { v2Swap, v3Swap, v4Swap } from "./ammActions.js";
import type { ChainClient } from "./ChainClient.js";
import type { DeployedContracts } from "./deployContracts.js";
import { roleAddress } from "./devAccounts.js";
import { MARKETS } from "./marketSpecs.js";
import type { SeededPool } from "./SeededPool.js";
import { tokenDecimals } from "./tokenDecimals.js";
import { type TokenSymbol, units } from "./tokenSpecs.js";

/**
 * Hours before the end of the history at which a block of swaps is mined: daily over 31 days, every 6 h
 * on the last two days, hourly over the last five hours, then twice inside the last hour. So the state 1,
 * 24, 168 and 720 hours before the head always has a different price than the head. Few steps on purpose:
 * the state dump carries a full state copy per block.
 */
export const HISTORY_HOURS_BEFORE_END: readonly number[] = [
  ...Array.from({ length: 30 }, (_, i) => 744 - i * 24),
  ...Array.from({ length: 7 }, (_, i) => 42 - i * 6),
  ...Array.from({ length: 5 }, (_, i) => 5 - i),
  0.5,
  0.25,
];

/** Pools whose price walks; MKR and SPAM stay still, like the thin markets they imitate. */
const MOVING_PURPOSES = new Set([
  "weth_usdc_deep",
  "fork_weth_usdc",
  "fork_weth_usdt",
  "weth_hop_only",
  "v3_deep",
  "v2_thin_other_price",
]);

/** Gas limit per history swap: automine is off, so nothing estimates it. */
const SWAP_GAS = 700_000n;

const openingDepth = (pool: SeededPool, symbol: string): number => {
  const spec = MARKETS.find((m) => m.protocol === pool.protocol && m.purpose === pool.purpose);
  if (spec === undefined) return 0;
  return spec.tokenA === symbol ? spec.amountA : spec.amountB;
};

const swapOn = (
  client: ChainClient,
  contracts: DeployedContracts,
  pool: SeededPool,
  tokenIn: Address,
  amountIn: bigint,
): Promise<Hash> => {
  const from = roleAddress("trader");
  const tokenOut = tokenIn === pool.token0 ? pool.token1 : pool.token0;
  switch (pool.protocol) {
    case "UniswapV2":
    case "SushiSwapV2": {
      const router =
        pool.protocol === "UniswapV2" ? contracts.uniswapV2.router : contracts.sushiswapV2.router;
      return v2Swap(client, { from, router, tokenIn, tokenOut, amountIn, gas: SWAP_GAS });
    }
    case "UniswapV3":
    case "SushiSwapV3": {
      const router =
        pool.protocol === "UniswapV3" ? contracts.uniswapV3.swapRouter : contracts.sushiswapV3.swapRouter;
      return v3Swap(client, { from, router, tokenIn, tokenOut, fee: pool.fee, amountIn, gas: SWAP_GAS });
    }
    case "UniswapV4":
      return v4Swap(client, {
        from,
        poolSwapTest: contracts.uniswapV4.poolSwapTest,
        key: pool.key!,
        zeroForOne: tokenIn === pool.token0,
        amountIn,
        gas: SWAP_GAS,
      });
  }
};

/**
 * One move per step and asset: a random return of up to +-1.5 %, pulled back towards the opening price so
 * the trader's balances last. ETH moves all WETH/stable pools together; WBTC and UNI move on their own.
 */
const stepSwaps = (
  client: ChainClient,
  contracts: DeployedContracts,
  pools: readonly SeededPool[],
  moves: ReadonlyMap<string, number>,
) =>
  pools
    .filter((pool) => MOVING_PURPOSES.has(pool.purpose))
    .map((pool) => {
      const other = (pool.symbol0 === "WETH" ? pool.symbol1 : pool.symbol0) as TokenSymbol;
      const asset = other === "WBTC" || other === "UNI" ? other : "WETH";
      const move = moves.get(asset) ?? 0;
      // For WETH/stable pools "up" buys WETH with the stable; for X/WETH pools "up" buys X with WETH.
      const buySymbol = (asset === "WETH" ? move > 0 : move < 0) ? "WETH" : other;
      const paySymbol = (buySymbol === "WETH" ? other : "WETH") as TokenSymbol;
      const amount = (Math.abs(move) / 2) * openingDepth(pool, paySymbol);
      const tokenIn = contracts.tokens[paySymbol];
      return () => swapOn(client, contracts, pool, tokenIn, units(amount, tokenDecimals(paySymbol)));
    });

/**
 * Mines {@link HISTORY_HOURS_BEFORE_END} as blocks of swaps at those timestamps (automine off, one block
 * per step), ending `endTimestamp`. Returns the number of blocks mined.
 */
export const seedHistory = async (
  client: ChainClient,
  contracts: DeployedContracts,
  pools: readonly SeededPool[],
  endTimestamp: number,
): Promise<number> => {
  const random = prng(client.chainId);
  const drift = new Map<string, number>([
    ["WETH", 0],
    ["WBTC", 0],
    ["UNI", 0],
  ]);
  await client.rpc("evm_setAutomine", [false]);
  try {
    for (const hours of HISTORY_HOURS_BEFORE_END) {
      const moves = new Map<string, number>();
      for (const [asset, cumulative] of drift) {
        const move = random() * 0.03 - 0.015 - cumulative * 0.25;
        moves.set(asset, move);
        drift.set(asset, cumulative + move);
      }
      // One at a time: concurrent eth_sendTransaction calls from one account race for the same nonce.
      const hashes: Hash[] = [];
      for (const swap of stepSwaps(client, contracts, pools, moves)) hashes.push(await swap());
      await client.rpc("evm_mine", [{ timestamp: Math.floor(endTimestamp - hours * 3600), blocks: 1 }]);
      const receipts = (await client.rpc("eth_getBlockReceipts", ["latest"])) as { status: string }[];
      if (receipts.length !== hashes.length || receipts.some((r) => r.status !== "0x1")) {
        throw new Error(`history step ${hours} h before the end failed on chain ${client.chainId}`);
      }
    }
  } finally {
    await client.rpc("evm_setAutomine", [true]);
  }
  return HISTORY_HOURS_BEFORE_END.length;
};
