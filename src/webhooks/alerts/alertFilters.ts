import { type ChainConfig, type ProtocolConfig, protocolsOf } from "../../chains/ChainsConfig.js";
import type { Position } from "../../contracts/Positions.js";
import type { WebhookRecord } from "../WebhookRecord.js";

/** The position type and protocol an alert is about, as `position_types` and `protocols` match them. */
export interface AlertScope {
  readonly type: Position["type"] | null;
  readonly protocol: string | null;
}

/** The position type of the entries a registry deployment's positions are shown as. */
const typeOf = (entry: ProtocolConfig): Position["type"] => {
  switch (entry.kind) {
    case "v2":
      return "AmmV2";
    case "v3":
    case "algebra":
      return "Nft";
    case "v4":
      return "NftV4";
    case "aave_v2":
    case "aave_v3":
      return "Tokenized";
    case "ctoken":
      return entry.fork === true ? "LendingV2Fork" : "LendingV2";
    case "comet":
      return "LendingV3";
    case "restake":
      return "RestakeStrategy";
    case "pendle":
      return "YieldSplit";
  }
};

/** The fields of an alert event of any condition that tell what it is about. */
export interface ScopedEvent {
  readonly protocol: string | null;
  /** `value_change_pct` alerts name the position's own type. */
  readonly position_type?: Position["type"];
  readonly lending_pool?: string;
  readonly position_manager?: string;
}

/**
 * What an alert is about. A `value_change_pct` alert names its position's type; the others name a
 * registry deployment (`protocol`) and the market (`lending_pool`: an Aave pool, a comptroller or a
 * Comet; for a cToken liquidation the cToken) or the NFT contract (`position_manager`): the type
 * is that of the entries the deployment's positions are shown as, the entry of that name at that
 * address first, then any entry of that name.
 */
export const alertScope = (chain: ChainConfig, event: ScopedEvent): AlertScope => {
  if (event.position_type !== undefined) return { type: event.position_type, protocol: event.protocol };
  const named = protocolsOf(chain).filter((p) => p.protocol === event.protocol);
  const at = named.find(
    (p) =>
      p.address === event.lending_pool ||
      (p.position_manager !== undefined && p.position_manager === event.position_manager),
  );
  const entry = at ?? named[0];
  return { type: entry === undefined ? null : typeOf(entry), protocol: event.protocol };
};

/**
 * Whether a webhook's `position_types` and `protocols` let an alert through: each unset, or naming
 * the alert's type or protocol (protocols in any case). An alert whose type or protocol is not
 * known (an ERC-4626 vault names no protocol) passes only the filters that are unset.
 */
export const passesPositionFilters = (
  record: Pick<WebhookRecord, "position_types" | "protocols">,
  scope: AlertScope,
): boolean => {
  const { type, protocol } = scope;
  if (record.position_types !== null && (type === null || !record.position_types.includes(type)))
    return false;
  if (record.protocols !== null) {
    if (protocol === null) return false;
    const lower = protocol.toLowerCase();
    return record.protocols.some((p) => p.toLowerCase() === lower);
  }
  return true;
};
