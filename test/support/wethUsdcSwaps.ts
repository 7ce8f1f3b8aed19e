import { type Address, parseAbi } from "viem";
import { v2Swap } from "../../src/devnet/ammActions.js";
import { type ChainClient, receiptOf } from "../../src/devnet/ChainClient.js";
import type { ManifestChain } from "../../src/devnet/DevnetManifest.js";
import { roleAddress } from "../../src/devnet/devAccounts.js";

const PAIR_ABI = parseAbi([
  "function getReserves() view returns (uint112, uint112, uint32)",
  "function token0() view returns (address)",
]);

/** What moves a devnet chain's WETH price: its seeded Aave supplier, WETH, USDC, and the deep WETH/USDC V2 pair with its router. */
export const supplierAndPair = (chain: ManifestChain) => ({
  supplier: chain.lending_positions
    .find((p) => p.purpose === "supplier" && p.kind === "aave_v3")!
    .owner.toLowerCase(),
  weth: chain.tokens.WETH!.address.toLowerCase() as Address,
  usdc: chain.tokens.USDC!.address.toLowerCase() as Address,
  pair: chain.pools
    .find((p) => p.protocol === "UniswapV2" && p.purpose === "weth_usdc_deep")!
    .address!.toLowerCase() as Address,
  router: chain.contracts.uniswap_v2_router as Address,
});

/**
 * Buys WETH in the pair with `share` of its USDC reserve, from the deployer (who must have approved
 * the router for USDC): the block of the swap.
 */
export const buyWeth = async (
  client: ChainClient,
  cast: ReturnType<typeof supplierAndPair>,
  share: number,
): Promise<bigint> => {
  const read = <F extends "getReserves" | "token0">(functionName: F) =>
    client.publicClient.readContract({ address: cast.pair, abi: PAIR_ABI, functionName });
  const [r0, r1] = await read("getReserves");
  const reserve = (await read("token0")).toLowerCase() === cast.usdc ? r0 : r1;
  const amountIn = (reserve * BigInt(Math.round(share * 10_000))) / 10_000n;
  const swap = await v2Swap(client, {
    from: roleAddress("deployer"),
    router: cast.router,
    tokenIn: cast.usdc,
    tokenOut: cast.weth,
    amountIn,
  });
  return (await receiptOf(client, swap)).blockNumber;
};
