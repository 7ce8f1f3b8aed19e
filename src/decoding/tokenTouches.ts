import type { AssetType } from "./activities/Activity.js";
import { NATIVE_TOKEN } from "./activities/Activity.js";
import type { ClassifyOptions } from "./activities/classifyTransaction.js";
import { collectEventMovements } from "./activities/collectMovements.js";
import { ZERO_ADDRESS } from "./activities/Movement.js";
import type { BlockLike } from "./BlockLike.js";
import { decodeLogs } from "./decodeLog.js";
import type { DecodedEvent } from "./events/DecodedEvent.js";
import { groupBy } from "./groupBy.js";

/** A wallet touched a token: its balance of it may have changed in this block. */
export interface TokenTouch {
  readonly wallet: string;
  readonly chain_id: number;
  /** Token contract, or `native`. */
  readonly token_address: string;
  readonly standard: AssetType;
}

/**
 * Every (wallet, chain, token, standard) whose balance this block may have changed, each once, in
 * first-seen order. Native first: every transaction sender (gas is paid even by a failed
 * transaction), the target of a successful transaction's value, both sides of internal transfers of
 * successful transactions. Then both sides of every token movement in log order (the same movements
 * `classifyBlock` uses: transfers of every standard, wrapped-native wraps). Works on `history` blocks,
 * which carry logs only. The zero address and zero-amount transfers are left out; approvals change
 * no balance and are left out too.
 */
export const tokenTouches = (
  block: BlockLike,
  options: ClassifyOptions = {},
  events: ReadonlyArray<DecodedEvent> = decodeLogs(block.logs),
): Array<TokenTouch> => collectTouches(block, options, events, true);

/**
 * {@link tokenTouches} without the native ones: the index's, which reads the native balance on every
 * request instead. The block's transactions are not looked at, nor their values parsed.
 */
export const contractTokenTouches = (
  block: BlockLike,
  options: ClassifyOptions,
  events: ReadonlyArray<DecodedEvent>,
): Array<TokenTouch> => collectTouches(block, options, events, false);

const collectTouches = (
  block: BlockLike,
  options: ClassifyOptions,
  events: ReadonlyArray<DecodedEvent>,
  withNative: boolean,
): Array<TokenTouch> => {
  const seen = new Set<string>();
  const out: Array<TokenTouch> = [];
  const touch = (wallet: string, token: string, standard: AssetType) => {
    if (wallet === ZERO_ADDRESS) return;
    const key = `${wallet}:${token}`;
    if (seen.has(key)) return;
    seen.add(key);
    out.push({ wallet, chain_id: block.chain_id, token_address: token, standard });
  };
  if (withNative) {
    const succeeded = new Set<string>();
    for (const tx of block.transactions) {
      touch(tx.from, NATIVE_TOKEN, "native");
      if (!tx.success) continue;
      succeeded.add(tx.hash);
      const target = tx.to ?? tx.contract_address;
      if (target !== null && BigInt(tx.value) !== 0n) touch(target, NATIVE_TOKEN, "native");
    }
    for (const transfer of block.internal_transfers ?? []) {
      if (!succeeded.has(transfer.transaction_hash) || BigInt(transfer.value) === 0n) continue;
      touch(transfer.from, NATIVE_TOKEN, "native");
      touch(transfer.to, NATIVE_TOKEN, "native");
    }
  }
  for (const txEvents of groupBy(events, (e) => e.transactionHash).values()) {
    for (const m of collectEventMovements(txEvents, options.wrappedNative)) {
      touch(m.from, m.token, m.assetType);
      touch(m.to, m.token, m.assetType);
    }
  }
  return out;
};
