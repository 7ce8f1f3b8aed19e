import type { Activity } from "../../decoding/index.js";
import type { WebhookRecord } from "../WebhookRecord.js";

/**
 * The filters of spec section 6, one predicate per event kind. Only events
 * matching every filter that is set are delivered; an unset filter (`null`)
 * matches everything.
 */

/** `chain_ids`: null follows every chain. */
export const followsChain = (record: WebhookRecord, chainId: number): boolean =>
  record.chain_ids === null || record.chain_ids.includes(chainId);

/** What a transaction moved: asset types and token contracts (`native` for the native currency). */
export interface Moved {
  readonly assetTypes: ReadonlySet<string>;
  readonly tokens: ReadonlySet<string>;
}

/**
 * `transactions`: `transaction_type` (the subscribed address's role), `counterparty` (the other
 * side), `asset_type` and `token_address` (something of that kind moved in the transaction).
 */
export const matchesTransaction = (
  record: WebhookRecord,
  role: "sender" | "receiver",
  counterparty: string | null,
  moved: Moved,
): boolean =>
  (record.transaction_type === null || record.transaction_type === role) &&
  (record.counterparty === null || record.counterparty === counterparty) &&
  (record.asset_type === null || moved.assetTypes.has(record.asset_type)) &&
  (record.token_address === null || moved.tokens.has(record.token_address));

const legType = (token: string) => (token === "native" ? "native" : "erc20");

/**
 * `activities`: `activity_type`, then `asset_type` and `token_address` against the activity's
 * asset (a swap matches on either leg; a `call` moves no asset, so it never matches them).
 */
export const matchesActivity = (record: WebhookRecord, activity: Activity): boolean => {
  if (record.activity_type !== null && record.activity_type !== activity.type) return false;
  if (record.asset_type === null && record.token_address === null) return true;
  if (activity.type === "call") return false;
  const assets =
    activity.type === "swap"
      ? [
          { type: legType(activity.from_token_address), token: activity.from_token_address },
          { type: legType(activity.to_token_address), token: activity.to_token_address },
        ]
      : [{ type: activity.asset_type, token: activity.token_address }];
  return assets.some(
    (asset) =>
      (record.asset_type === null || record.asset_type === asset.type) &&
      (record.token_address === null || record.token_address === asset.token),
  );
};

/** `balances`: `asset_type` (`native` or `erc20`) and `token_address` against the changed asset. */
export const matchesBalance = (record: WebhookRecord, token: string): boolean =>
  (record.asset_type === null || record.asset_type === legType(token)) &&
  (record.token_address === null || record.token_address === token);
