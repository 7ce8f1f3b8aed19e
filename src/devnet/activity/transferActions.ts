import { parseEther, type TransactionReceipt } from "viem";
import { collectibleAbi, erc20Abi, multiTokenAbi } from "../abis.js";
import { execute, receiptOf } from "../ChainClient.js";
import { units } from "../tokenSpecs.js";
import { type ActivityContext, contractAddress, nextPair, tokenAddress } from "./ActivityContext.js";

/** Sends 0.01 ETH between activity wallets. */
export const nativeTransfer = async (ctx: ActivityContext): Promise<TransactionReceipt[]> => {
  const { from, to } = nextPair(ctx);
  const chain = ctx.client.walletClient.chain;
  const hash = await ctx.client.walletClient.sendTransaction({
    account: from,
    chain,
    to,
    value: parseEther("0.01"),
  });
  return [await receiptOf(ctx.client, hash)];
};

/** Sends 25 USDC between activity wallets. */
export const erc20Transfer = async (ctx: ActivityContext): Promise<TransactionReceipt[]> => {
  const { from, to } = nextPair(ctx);
  return [
    await execute(ctx.client, {
      from,
      address: tokenAddress(ctx, "USDC"),
      abi: erc20Abi,
      functionName: "transfer",
      args: [to, units(25, 6)],
    }),
  ];
};

/** Approves another activity wallet to spend 100 DAI (an allowance change with nothing moving). */
export const approval = async (ctx: ActivityContext): Promise<TransactionReceipt[]> => {
  const { from, to } = nextPair(ctx);
  return [
    await execute(ctx.client, {
      from,
      address: tokenAddress(ctx, "DAI"),
      abi: erc20Abi,
      functionName: "approve",
      args: [to, units(100 + (ctx.turn % 50), 18)],
    }),
  ];
};

const COLLECTIBLE_IDS = Array.from({ length: 30 }, (_, i) => BigInt(i + 1));

/** Moves one collectible (ERC-721) from an activity wallet that owns one to the next wallet. */
export const erc721Transfer = async (ctx: ActivityContext): Promise<TransactionReceipt[]> => {
  const address = contractAddress(ctx, "erc721_collectible");
  // One Multicall3 round trip for all owners: the canonical Multicall3 is what viem batches through.
  const owners = await ctx.client.publicClient.multicall({
    contracts: COLLECTIBLE_IDS.map(
      (id) => ({ address, abi: collectibleAbi, functionName: "ownerOf", args: [id] }) as const,
    ),
    allowFailure: false,
  });
  for (let attempt = 0; attempt < ctx.wallets.length; attempt++) {
    const { from, to } = nextPair(ctx);
    const index = owners.findIndex((owner) => owner.toLowerCase() === from.toLowerCase());
    if (index >= 0) {
      const args = [from, to, COLLECTIBLE_IDS[index]!] as const;
      return [
        await execute(ctx.client, {
          from,
          address,
          abi: collectibleAbi,
          functionName: "safeTransferFrom",
          args,
        }),
      ];
    }
  }
  throw new Error(`no activity wallet owns a collectible on ${ctx.chain.name}`);
};

/** Moves one unit of an ERC-1155 item between activity wallets. */
export const erc1155Transfer = async (ctx: ActivityContext): Promise<TransactionReceipt[]> => {
  const address = contractAddress(ctx, "erc1155_multi_token");
  for (let attempt = 0; attempt < ctx.wallets.length * 3; attempt++) {
    const { from, to } = nextPair(ctx);
    const id = BigInt((ctx.turn % 3) + 1);
    const balance = await ctx.client.publicClient.readContract({
      address,
      abi: multiTokenAbi,
      functionName: "balanceOf",
      args: [from, id],
    });
    if (balance > 0n) {
      return [
        await execute(ctx.client, {
          from,
          address,
          abi: multiTokenAbi,
          functionName: "safeTransferFrom",
          args: [from, to, id, 1n, "0x"],
        }),
      ];
    }
  }
  throw new Error(`no activity wallet holds ERC-1155 items on ${ctx.chain.name}`);
};
