import { type Address, maxUint128 } from "viem";
import { positionManagerV3Abi } from "../abis.js";
import { FAR_DEADLINE } from "../ammActions.js";
import { type ChainClient, send } from "../ChainClient.js";

/** Position-manager calls of the V3 design that the seed makes beyond minting. */
export interface V3PositionTarget {
  readonly client: ChainClient;
  readonly positionManager: Address;
  readonly owner: Address;
  readonly tokenId: bigint;
}

const positionOf = (t: V3PositionTarget) =>
  t.client.publicClient.readContract({
    address: t.positionManager,
    abi: positionManagerV3Abi,
    functionName: "positions",
    args: [t.tokenId],
  });

/** Removes `liquidity` from the position: the amounts (and fees so far) move into its `tokensOwed`. */
export const decreaseLiquidity = (t: V3PositionTarget, liquidity: bigint) =>
  send(t.client, {
    from: t.owner,
    address: t.positionManager,
    abi: positionManagerV3Abi,
    functionName: "decreaseLiquidity",
    args: [{ tokenId: t.tokenId, liquidity, amount0Min: 0n, amount1Min: 0n, deadline: FAR_DEADLINE }],
  });

/** Collects at most `amount0Max`/`amount1Max` of what the position is owed to its owner. */
export const collect = (t: V3PositionTarget, amount0Max = maxUint128, amount1Max = maxUint128) =>
  send(t.client, {
    from: t.owner,
    address: t.positionManager,
    abi: positionManagerV3Abi,
    functionName: "collect",
    args: [{ tokenId: t.tokenId, recipient: t.owner, amount0Max, amount1Max }],
  });

/**
 * Leaves the position with `tokensOwed` on both sides: removes half its liquidity (principal and fees move
 * into tokensOwed), then collects only half of what is owed.
 */
export const partiallyCollect = async (t: V3PositionTarget): Promise<void> => {
  const liquidity = (await positionOf(t))[7];
  await decreaseLiquidity(t, liquidity / 2n);
  const [, , , , , , , , , , owed0, owed1] = await positionOf(t);
  await collect(t, owed0 / 2n, owed1 / 2n);
};

/** Closes the position: removes all liquidity, collects everything (fees included), burns the NFT. */
export const closeAndBurn = async (t: V3PositionTarget): Promise<void> => {
  await decreaseLiquidity(t, (await positionOf(t))[7]);
  await collect(t);
  await send(t.client, {
    from: t.owner,
    address: t.positionManager,
    abi: positionManagerV3Abi,
    functionName: "burn",
    args: [t.tokenId],
  });
};

/** Moves the position NFT to `to` with `safeTransferFrom`, as a wallet would. */
export const transferPosition = (t: V3PositionTarget, to: Address) =>
  send(t.client, {
    from: t.owner,
    address: t.positionManager,
    abi: positionManagerV3Abi,
    functionName: "safeTransferFrom",
    args: [t.owner, to, t.tokenId],
  });
