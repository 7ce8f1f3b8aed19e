import type { ChainBlock } from "../../domain/ChainBlock.js";
import { logoUrl } from "../../logos/logoUrl.js";
import { LOW_LIQUIDITY_USD } from "../../pricing/liquidityThresholds.js";
import { toUnits } from "../../pricing/poolMath.js";
import type { WebhookRecord } from "../WebhookRecord.js";
import type { BalanceTouch } from "./balanceTouches.js";
import { matchesBalance } from "./filters.js";
import type { BalanceRead } from "./readBalances.js";

/** One element of a `balances` delivery (compatible API section 8.4, plus chain, block, `event_id` and `removed`). */
export interface BalanceChangeEvent {
  /** `<chain_id>:<block_hash>:<wallet>:<token>`. */
  readonly event_id: string;
  readonly removed: boolean;
  readonly chain_id: number;
  readonly block_number: number;
  readonly block_hash: string;
  readonly subscribed_address: string;
  readonly counterparty_address: string | null;
  readonly direction: "in" | "out";
  readonly transaction_hash: string;
  /** Raw amounts, decimal strings; `amount_delta` is signed. */
  readonly amount_before: string;
  readonly amount_after: string;
  readonly amount_delta: string;
  /** USD fields only when the asset has a price. */
  readonly price_usd?: number;
  readonly value_before_usd?: number;
  readonly value_after_usd?: number;
  readonly value_delta_usd?: number;
  readonly asset: {
    readonly token_address: string;
    readonly symbol: string | null;
    readonly name: string | null;
    readonly decimals: number | null;
    readonly low_liquidity?: boolean;
    readonly pool_size_usd?: number;
    readonly token_metadata: { readonly logo: string };
  };
}

/**
 * The balance changes of `record`'s addresses in a block: every touched native
 * or ERC-20 balance that passes its filters and actually changed between the
 * block before and this one (a send and a receive that cancel out, or an
 * approval, change nothing and are not reported).
 */
export const balanceEvents = (
  block: ChainBlock,
  touches: ReadonlyMap<string, BalanceTouch>,
  reads: ReadonlyMap<string, BalanceRead>,
  record: WebhookRecord,
  addresses: ReadonlySet<string>,
  publicUrl: string,
): ReadonlyArray<BalanceChangeEvent> => {
  const out: Array<BalanceChangeEvent> = [];
  for (const [key, touch] of touches) {
    const read = reads.get(key);
    if (read === undefined || !addresses.has(touch.wallet) || !matchesBalance(record, touch.token)) continue;
    const delta = read.after - read.before;
    if (delta === 0n) continue;
    const price = read.decimals === null ? undefined : read.price;
    const usd = (amount: bigint) =>
      (amount < 0n ? -1 : 1) *
      toUnits(amount < 0n ? -amount : amount, read.decimals ?? 0) *
      (price?.priceUsd ?? 0);
    const isNative = touch.token === "native";
    out.push({
      event_id: `${block.chain_id}:${block.hash}:${touch.wallet}:${touch.token}`,
      removed: false,
      chain_id: block.chain_id,
      block_number: block.number,
      block_hash: block.hash,
      subscribed_address: touch.wallet,
      counterparty_address: touch.counterparty,
      direction: delta > 0n ? "in" : "out",
      transaction_hash: touch.transactionHash,
      amount_before: read.before.toString(),
      amount_after: read.after.toString(),
      amount_delta: delta.toString(),
      ...(price === undefined
        ? {}
        : {
            price_usd: price.priceUsd,
            value_before_usd: usd(read.before),
            value_after_usd: usd(read.after),
            value_delta_usd: usd(delta),
          }),
      asset: {
        token_address: touch.token,
        symbol: read.symbol,
        name: read.name,
        decimals: read.decimals,
        ...(isNative || price === undefined
          ? {}
          : { low_liquidity: price.poolSize < LOW_LIQUIDITY_USD, pool_size_usd: price.poolSize }),
        token_metadata: { logo: logoUrl(publicUrl, block.chain_id, touch.token) },
      },
    });
  }
  return out;
};
