import type { WebhookDetail } from "./AdminClient.js";

/** A webhook's filters as one phrase, `none (every event of its addresses)` when none is set. */
export const filterSummary = ({ filters }: WebhookDetail["webhook"]): string => {
  const parts = [
    filters.chain_ids === null ? "all chains" : `chains ${filters.chain_ids.join(",")}`,
    ...(filters.transaction_type === null ? [] : [`direction ${filters.transaction_type}`]),
    ...(filters.counterparty === null ? [] : [`counterparty ${filters.counterparty}`]),
    ...(filters.activity_type === null ? [] : [`activity ${filters.activity_type}`]),
    ...(filters.asset_type === null ? [] : [`asset ${filters.asset_type}`]),
    ...(filters.token_address === null ? [] : [`token ${filters.token_address}`]),
    ...(filters.conditions?.health_factor_below === undefined
      ? []
      : [`health factor below ${filters.conditions.health_factor_below}`]),
    ...(filters.conditions?.liquidated === true ? ["liquidations"] : []),
    ...(filters.conditions?.out_of_range === true ? ["out of range"] : []),
    ...(filters.conditions?.in_range === true ? ["back in range"] : []),
    ...(filters.conditions?.value_change_pct === undefined
      ? []
      : [`value change ${filters.conditions.value_change_pct}%`]),
    ...(filters.position_types === null ? [] : [`types ${filters.position_types.join(",")}`]),
    ...(filters.protocols === null ? [] : [`protocols ${filters.protocols.join(",")}`]),
  ];
  return parts.join(" · ");
};
