import { InvalidRequest } from "../contracts/ApiError.js";
import type { OptionalFilter, WebhookType } from "../contracts/Webhooks.js";

type Kind = typeof WebhookType.Type;

import { checkWebhookUrl, type UrlPolicy } from "./targets/urlPolicy.js";
import type { WebhookSettings } from "./WebhookRecord.js";

/** Longest accepted webhook name, in characters. */
export const MAX_NAME_LENGTH = 200;

const fieldError = (field: string, reason: string) =>
  new InvalidRequest({ code: "INVALID_BODY", message: `body field "${field}" ${reason}.` });

/** `name`: non-empty after trimming, at most 200 characters, no control characters. */
export const checkName = (name: string): InvalidRequest | undefined => {
  if (name.trim().length === 0) return fieldError("name", "must not be empty");
  if (name.length > MAX_NAME_LENGTH)
    return fieldError("name", `must be at most ${MAX_NAME_LENGTH} characters`);
  if (/\p{Cc}/u.test(name)) return fieldError("name", "must not contain control characters");
  return undefined;
};

/** `url`: see checkWebhookUrl. */
export const checkUrl = (url: string, policy: UrlPolicy): InvalidRequest | undefined => {
  const reason = checkWebhookUrl(url, policy);
  return reason === undefined ? undefined : fieldError("url", reason);
};

/**
 * `chain_ids`: `null` (all chains) or a non-empty list of chains this
 * deployment serves subscriptions on; returned sorted and deduplicated.
 */
export const normaliseChainIds = (
  ids: ReadonlyArray<number> | null,
  supported: ReadonlySet<number>,
): InvalidRequest | ReadonlyArray<number> | null => {
  if (ids === null) return null;
  if (ids.length === 0)
    return fieldError("chain_ids", "must not be empty; use null for all supported chains");
  const unsupported = [...new Set(ids.filter((id) => !supported.has(id)))];
  if (unsupported.length > 0) {
    const list = [...supported].sort((a, b) => a - b).join(", ") || "none";
    return fieldError(
      "chain_ids",
      `contains ${unsupported.slice(0, 10).join(", ")}, not supported for subscriptions by this service (supported: ${list})`,
    );
  }
  return [...new Set(ids)].sort((a, b) => a - b);
};

type Filters = Pick<WebhookSettings, OptionalFilter>;

/**
 * A `positions` webhook alerts on its `conditions`, at least one of them; asset filters mean
 * nothing to it (a position is not one asset), so they are refused rather than silently ignored.
 */
const positionsRules = (type: Kind, filters: Filters): InvalidRequest | undefined => {
  if (type !== "positions") return undefined;
  if (filters.conditions === null || Object.values(filters.conditions).every((v) => v === undefined))
    return fieldError(
      "conditions",
      "must name at least one condition on a positions webhook (health_factor_below, liquidated, out_of_range, in_range or value_change_pct)",
    );
  for (const field of ["asset_type", "token_address"] as const)
    if (filters[field] !== null)
      return fieldError(
        field,
        "is not allowed on positions webhooks: use conditions, chain_ids, position_types and protocols",
      );
  return undefined;
};

/**
 * Filters allowed by the webhook's type (spec 7): `transaction_type` and
 * `counterparty` only on transactions webhooks, `activity_type` only on
 * activities webhooks, `conditions` only (and always) on positions webhooks,
 * `position_types` and `protocols` only on positions webhooks;
 * and no `token_address` for the native asset. `touched`
 * names the fields the request set, so the message blames one of them.
 */
export const checkFilters = (
  type: Kind,
  filters: Filters,
  touched: ReadonlySet<string>,
): InvalidRequest | undefined => {
  const onlyFor = (field: keyof Filters, wanted: Kind) =>
    filters[field] !== null && type !== wanted
      ? fieldError(field, `is only allowed on ${wanted} webhooks: webhook type ${type} cannot have ${field}`)
      : undefined;
  const typeError =
    onlyFor("transaction_type", "transactions") ??
    onlyFor("counterparty", "transactions") ??
    onlyFor("activity_type", "activities") ??
    onlyFor("conditions", "positions") ??
    onlyFor("position_types", "positions") ??
    onlyFor("protocols", "positions") ??
    positionsRules(type, filters);
  if (typeError !== undefined) return typeError;
  if (filters.asset_type === "native" && filters.token_address !== null) {
    const blamed =
      touched.has("asset_type") && !touched.has("token_address") ? "asset_type" : "token_address";
    return fieldError(
      blamed,
      "cannot combine asset_type native with a token_address (native has no contract)",
    );
  }
  return undefined;
};
