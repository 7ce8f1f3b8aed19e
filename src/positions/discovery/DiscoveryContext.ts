import type { ChainConfig } from "../../chains/ChainsConfig.js";
import { aggregate3, type RawCall, type RawResult } from "../../chains/multicall3.js";
import type { BlockRef } from "../../chains/readEachChain.js";
import type { ChainRpc } from "../../chains/rpc/ChainRpc.js";
import type { IndexReads } from "../../indexer/PendingWrites.js";
import type { Operation } from "../../storage/Level.js";

/**
 * What one discovery reads: a chain at one block, through its RPC, and the index it adds to (read
 * only to leave alone what the index already holds). Discovery asks the chain what it holds now, so a
 * service that started at the head still finds positions opened before it.
 */
export interface DiscoveryContext {
  readonly chain: ChainConfig;
  /** The block every read is made at (the index's checkpoint): what is found matches what requests read. */
  readonly block: BlockRef;
  readonly rpc: ChainRpc;
  readonly db: IndexReads;
}

/** Writes for the index views, and a note when the finder read less than there was (a cap). */
export interface Findings {
  readonly ops: ReadonlyArray<Operation>;
  readonly truncated?: string;
}

export const NO_FINDINGS: Findings = { ops: [] };

/**
 * Calls one eth_call carries at most here. A node caps each eth_call's gas (geth and Erigon at 50M
 * by default, some providers lower): 500 reads of a position NFT's storage (about 25k gas each when
 * cold) stay near 12M, so a wallet at the NFT cap of two managers is read in a few eth_calls sent at
 * once rather than one that runs out of gas.
 */
export const CALLS_PER_READ = 500;

/**
 * One round trip: every call in Multicall3 `aggregate3`s at the context's block, sent at once, in
 * chunks of CALLS_PER_READ (and of the calldata cap, which aggregate3 applies itself).
 */
export const readAt = async (
  context: DiscoveryContext,
  calls: ReadonlyArray<RawCall>,
): Promise<ReadonlyArray<RawResult>> => {
  if (calls.length <= CALLS_PER_READ) return aggregate3(context.rpc, calls, { block: context.block });
  const chunks: Array<ReadonlyArray<RawCall>> = [];
  for (let at = 0; at < calls.length; at += CALLS_PER_READ) chunks.push(calls.slice(at, at + CALLS_PER_READ));
  const results = await Promise.all(
    chunks.map((chunk) => aggregate3(context.rpc, chunk, { block: context.block })),
  );
  return results.flat();
};
