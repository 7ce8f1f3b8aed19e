import type { ChainConfig } from "../chains/ChainsConfig.js";
import { contractTokenTouches, decodeLogs, poolsCreated } from "../decoding/index.js";
import type { ChainBlock } from "../domain/ChainBlock.js";
import type { Operation } from "../storage/Level.js";
import type { IndexCheckpoint, IndexedPool, TokenMetadata, TouchedToken, UndoEntry } from "./IndexRecords.js";
import {
  blockTimeKey,
  indexCheckpointKey,
  timeBlockKey,
  tokenMetadataKey,
  undoKey,
  walletTokenKey,
} from "./indexKeys.js";
import type { LateRegistryReads } from "./lateRegistryReads.js";
import type { IndexReads } from "./PendingWrites.js";
import { planLendingViews, type ReadUnderlying } from "./planLendingViews.js";
import { poolViewWrites, registryByAddress, registryPool } from "./planPoolViews.js";
import { planPositionNfts } from "./planPositionNfts.js";
import { planRestakeViews } from "./planRestakeViews.js";
import { type ProbeVaults, planVaultProbes } from "./planVaultProbes.js";
import { planYieldSplitViews } from "./planYieldSplitViews.js";

const NATIVE_ZERO = "0x0000000000000000000000000000000000000000";

/**
 * The writes that index one block, with what it changes recorded for undo:
 * tokens each wallet touched (first block kept), pools of configured factories
 * and the tokens they pair, position NFTs each wallet holds and where each was
 * minted, lending tokens and wallets' parts in lending markets, restaking
 * deposits, yield-splitting tokens (PT, YT, market) of registry factories, block time both ways, and metadata and an ERC-4626 probe for tokens
 * seen for the first time (read through `reads`, one multicall each per block).
 * Native touches are not indexed: the native balance is read on every request,
 * and history blocks (logs only) could not rebuild them.
 */
/** What indexing reads from the chain itself: metadata of new tokens, assets of new cTokens, Comets and SYs, vault probes. */
export interface BlockReads {
  readonly metadata: (tokens: ReadonlyArray<string>) => Promise<ReadonlyArray<TokenMetadata>>;
  readonly underlying: ReadUnderlying;
  readonly vaults: ProbeVaults;
  /** Registry items a live event names that the index has not met (lateRegistryReads.ts). */
  readonly late?: LateRegistryReads;
  /**
   * Whether the wallet's token touches are recorded (IndexedWallets.ts; every wallet's when absent).
   * Asked for every touch before planning's first wait, so that the block is planned against one set of wallets.
   */
  readonly recordsWallet?: (wallet: string) => boolean;
}

export const planBlock = async (
  db: IndexReads,
  chain: ChainConfig,
  block: ChainBlock,
  reads: BlockReads,
): Promise<ReadonlyArray<Operation>> => {
  const events = decodeLogs(block.logs);
  const touches = contractTokenTouches(
    block,
    chain.wrapped_native === undefined ? {} : { wrappedNative: chain.wrapped_native },
    events,
  );
  const registry = registryByAddress(chain);
  const pools: Array<IndexedPool> = [];
  for (const created of poolsCreated(block, events)) {
    const pool = registryPool(registry, created);
    if (pool !== undefined) pools.push(pool);
  }

  const ops: Array<Operation> = [];
  const added: Array<UndoEntry> = [];
  const putNew = (key: string, value: unknown) => {
    ops.push({ type: "put", key, value });
    added.push(key);
  };

  const recordsWallet = reads.recordsWallet;
  const recorded = recordsWallet === undefined ? touches : touches.filter((t) => recordsWallet(t.wallet));
  const touchKeys = recorded.map((t) => walletTokenKey(t.wallet, block.chain_id, t.token_address));
  const existingTouches = await db.getMany(touchKeys);
  recorded.forEach((touch, i) => {
    if (existingTouches[i] !== undefined) return;
    const record: TouchedToken = {
      standard: touch.standard as TouchedToken["standard"],
      first_block: block.number,
    };
    putNew(touchKeys[i]!, record);
  });

  for (const pool of pools)
    for (const [key, value] of poolViewWrites(block.chain_id, pool)) putNew(key, value);

  const tokens = [
    ...new Set([...touches.map((t) => t.token_address), ...pools.flatMap((p) => [p.token0, p.token1])]),
  ].filter((token) => token !== NATIVE_ZERO);
  const existingMetadata = await db.getMany(tokens.map((token) => tokenMetadataKey(block.chain_id, token)));
  const unknown = tokens.filter((_, i) => existingMetadata[i] === undefined);
  const metadata = await reads.metadata(unknown);
  unknown.forEach((token, i) => {
    ops.push({ type: "put", key: tokenMetadataKey(block.chain_id, token), value: metadata[i] });
  });

  const fungible = [
    ...new Set(touches.filter((t) => t.standard === "erc20").map((t) => t.token_address)),
  ].filter((token) => token !== NATIVE_ZERO);
  for (const views of [
    await planPositionNfts(db, chain, block.number, events),
    await planLendingViews(db, chain, block.number, events, reads.underlying, reads.late),
    await planRestakeViews(db, chain, block.number, events),
    await planYieldSplitViews(db, chain, events, reads.underlying, reads.late),
    await planVaultProbes(db, block.chain_id, fungible, reads.vaults),
  ]) {
    ops.push(...views.ops);
    added.push(...views.undo);
  }

  putNew(blockTimeKey(block.chain_id, block.number), block.timestamp);
  putNew(timeBlockKey(block.chain_id, block.timestamp, block.number), block.number);
  ops.push({ type: "put", key: undoKey(block.chain_id, block.number), value: added });
  // Undo records are needed only while a block can still be reorganised away.
  ops.push({ type: "del", key: undoKey(block.chain_id, block.number - chain.finality_depth) });
  ops.push({
    type: "put",
    key: indexCheckpointKey(block.chain_id),
    value: { number: block.number, hash: block.hash } satisfies IndexCheckpoint,
  });
  return ops;
};

/** The writes that undo blocks reorganised away (given highest first), rewinding the checkpoint to the ancestor. */
export const planRevert = async (
  db: IndexReads,
  chainId: number,
  removed: ReadonlyArray<{ readonly number: number }>,
  ancestor: IndexCheckpoint,
): Promise<ReadonlyArray<Operation>> => {
  const undo = await db.getMany(removed.map((block) => undoKey(chainId, block.number)));
  const ops: Array<Operation> = [];
  removed.forEach((block, i) => {
    // Newest change first, so a key changed twice ends at its oldest recorded value.
    const entries = [...((undo[i] as ReadonlyArray<UndoEntry> | undefined) ?? [])].reverse();
    for (const entry of entries)
      ops.push(
        typeof entry === "string"
          ? { type: "del", key: entry }
          : { type: "put", key: entry.key, value: entry.value },
      );
    ops.push({ type: "del", key: undoKey(chainId, block.number) });
  });
  ops.push({ type: "put", key: indexCheckpointKey(chainId), value: ancestor });
  return ops;
};

/**
 * The writes that apply a reorg to this index: every block it applied above the common ancestor is
 * reverted, highest first, not only those the reorg lists as removed. The list is what the follower
 * knows it published; a follower that resumed from a checkpoint saved before its last publish (stopped
 * between the two) does not list that block, though this index applied it. Blocks further down than
 * `finality_depth` have no undo record left, so the range stops there.
 */
export const planReorg = async (
  db: IndexReads,
  chain: ChainConfig,
  checkpoint: IndexCheckpoint | undefined,
  reorg: { readonly common_ancestor: IndexCheckpoint },
): Promise<ReadonlyArray<Operation>> => {
  const ancestor = reorg.common_ancestor;
  if (checkpoint === undefined || checkpoint.number <= ancestor.number) return [];
  const count = Math.min(checkpoint.number - ancestor.number, chain.finality_depth);
  const applied = Array.from({ length: count }, (_, i) => ({ number: checkpoint.number - i }));
  return planRevert(db, chain.chain_id, applied, ancestor);
};
