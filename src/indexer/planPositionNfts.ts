import { type ChainConfig, protocolsOf } from "../chains/ChainsConfig.js";
import type { DecodedEvent } from "../decoding/index.js";
import type { Operation } from "../storage/Level.js";
import type { NftRecord, UndoEntry, WalletNft } from "./IndexRecords.js";
import { nftKey, walletHeldNftKey, walletNftKey } from "./indexKeys.js";
import type { IndexReads } from "./PendingWrites.js";
import { type PositionManager, positionNftEvents } from "./positionNftEvents.js";

const ZERO = "0x0000000000000000000000000000000000000000";

/** The registry's position managers by NFT contract address. */
export const positionManagersOf = (chain: ChainConfig): ReadonlyMap<string, PositionManager> => {
  const managers = new Map<string, PositionManager>();
  for (const entry of protocolsOf(chain)) {
    if (entry.position_manager === undefined) continue;
    if (entry.kind !== "v3" && entry.kind !== "v4" && entry.kind !== "algebra") continue;
    managers.set(entry.position_manager, {
      manager: entry.position_manager,
      kind: entry.kind,
      protocol: entry.protocol,
      factory: entry.address,
    });
  }
  return managers;
};

/**
 * The writes that keep the position NFT views current for one block: who holds each NFT of a
 * registry position manager (a transfer moves it, a burn removes it), which NFTs each wallet has
 * been seen holding (kept from the first block a transfer showed it, whichever side it was on), and
 * the pool and range of each new one. Changes are netted per key over the block, and every change
 * is recorded with the value it replaced, so a reorg restores the views exactly (a transfer
 * included).
 */
export const planPositionNfts = async (
  db: IndexReads,
  chain: ChainConfig,
  blockNumber: number,
  events: ReadonlyArray<DecodedEvent>,
): Promise<{ readonly ops: ReadonlyArray<Operation>; readonly undo: ReadonlyArray<UndoEntry> }> => {
  const managers = positionManagersOf(chain);
  if (managers.size === 0) return { ops: [], undo: [] };
  const { transfers, mints } = positionNftEvents(events, managers);
  if (transfers.length === 0) return { ops: [], undo: [] };

  // Final value of every key the block touches (undefined: deleted), in event order.
  const after = new Map<string, WalletNft | NftRecord | undefined>();
  const everHeld = new Set<string>();
  // Both sides held it: the sender too, though the index may never have seen it arrive.
  const heldBy = (wallet: string, t: (typeof transfers)[number]) => {
    const key = walletHeldNftKey(wallet, chain.chain_id, t.manager, t.tokenId);
    after.set(key, { block: blockNumber });
    everHeld.add(key);
  };
  for (const t of transfers) {
    if (t.from !== ZERO) {
      after.set(walletNftKey(t.from, chain.chain_id, t.manager, t.tokenId), undefined);
      heldBy(t.from, t);
    }
    if (t.to === ZERO) continue;
    after.set(walletNftKey(t.to, chain.chain_id, t.manager, t.tokenId), { block: blockNumber });
    heldBy(t.to, t);
  }
  for (const m of mints) {
    after.set(nftKey(chain.chain_id, m.manager, m.tokenId), {
      pool: m.pool,
      tick_lower: m.tickLower,
      tick_upper: m.tickUpper,
    } satisfies NftRecord);
  }

  const keys = [...after.keys()];
  const before = await db.getMany(keys);
  const ops: Array<Operation> = [];
  const undo: Array<UndoEntry> = [];
  keys.forEach((key, i) => {
    const previous = before[i];
    const next = after.get(key);
    if (next === undefined) {
      if (previous === undefined) return;
      ops.push({ type: "del", key });
      undo.push({ key, value: previous });
    } else {
      // What a wallet has held keeps the first block it was seen holding it.
      if (everHeld.has(key) && previous !== undefined) return;
      // A receive always records its block, even where the index already says the wallet holds the
      // NFT (it came back within the block, or discovery's record was stale): DisownedNfts deletes a
      // record only if no receive after the read that found it stale has moved its block.
      ops.push({ type: "put", key, value: next });
      undo.push(previous === undefined ? key : { key, value: previous });
    }
  });
  return { ops, undo };
};
