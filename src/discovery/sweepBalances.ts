import { ethCall } from "../chains/multicall3.js";
import type { BlockRef } from "../chains/readEachChain.js";
import type { ChainRpc } from "../chains/rpc/ChainRpc.js";
import { ChainRpcError } from "../chains/rpc/ChainRpcError.js";
import { decodeSweep, sweepCall, sweepLensCode } from "./lens/sweepLens.js";

/**
 * Tokens per eth_call. rotki found 460 the most that no public node refused; 500 at the lens's
 * 60,000 gas per token is 30M gas at worst (under the 50M cap of geth, reth and Erigon), and
 * 16 KB of answer (under Erigon's 100 kB return-data limit). Typical tokens cost under 10,000.
 */
export const SWEEP_BATCH = 500;
/** Below this a refused batch is not split further: the node refuses something other than its size. */
const SMALLEST_BATCH = 16;
/** Gas given to each eth_call: the batch's worst case, which every node's default cap allows. */
const SWEEP_GAS = 31_000_000n;

/**
 * Whether a failed eth_call may have failed for its size (a gas cap, a return-data limit, a
 * timeout on a slow node): only those are worth splitting. A node that is down or rate-limits
 * would refuse the halves as well.
 */
const mayBeTooLarge = (error: unknown): boolean =>
  !(error instanceof ChainRpcError) ||
  error.reason === "Rejected" ||
  error.reason === "BadResponse" ||
  error.reason === "Timeout";

export interface SweepResult {
  /** Tokens the wallet holds a non-zero balance of, with the amounts read. */
  readonly held: ReadonlyArray<{ readonly token: string; readonly amount: bigint }>;
  /** eth_calls made, refused ones included. */
  readonly calls: number;
}

/**
 * The wallet's `balanceOf` in every token of `tokens` at `block`, in eth_calls of SWEEP_BATCH
 * tokens sent together (the chain's RPC layer bounds how many are in flight). A batch the node
 * refuses (over its gas or return-data cap, or one the lens aborted for gas) is read again in
 * halves; one that still fails at SMALLEST_BATCH fails the sweep, which is never answered short.
 */
export const sweepBalances = async (
  rpc: ChainRpc,
  wallet: string,
  tokens: ReadonlyArray<string>,
  block: BlockRef,
): Promise<SweepResult> => {
  const code = await sweepLensCode();
  let calls = 0;
  const held: Array<{ token: string; amount: bigint }> = [];
  const read = async (part: ReadonlyArray<string>): Promise<void> => {
    calls++;
    // Straight to the lens, not through Multicall3: a chain without it is swept all the same.
    const balances = await ethCall(rpc, sweepCall(code, wallet, part), { block, gas: SWEEP_GAS })
      .then((answer) => decodeSweep({ success: true, returnData: answer }, part.length))
      .catch((error: unknown) => {
        if (part.length <= SMALLEST_BATCH || !mayBeTooLarge(error)) throw error;
        return undefined;
      });
    if (balances === undefined) {
      if (part.length <= SMALLEST_BATCH)
        throw new Error(`the balance sweep of ${part.length} tokens failed at block ${block.number}`);
      const half = Math.ceil(part.length / 2);
      await Promise.all([read(part.slice(0, half)), read(part.slice(half))]);
      return;
    }
    balances.forEach((amount, i) => {
      if (amount > 0n) held.push({ token: part[i]!, amount });
    });
  };
  const unique = [...new Set(tokens)];
  const batches: Array<ReadonlyArray<string>> = [];
  for (let i = 0; i < unique.length; i += SWEEP_BATCH) batches.push(unique.slice(i, i + SWEEP_BATCH));
  await Promise.all(batches.map(read));
  return { held, calls };
};
