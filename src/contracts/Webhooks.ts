import { Schema } from "effect";
import { Address } from "./Common.js";
import { endpoint } from "./Endpoint.js";
import type { Position } from "./Positions.js";

export const WebhookType = Schema.Literal("transactions", "activities", "balances", "positions");
export const TransactionType = Schema.Literal("sender", "receiver");
export const ActivityType = Schema.Literal("approve", "mint", "burn", "receive", "send", "swap", "call");
export const AssetType = Schema.Literal("native", "erc20", "erc721", "erc1155");

/** Highest `health_factor_below` accepted: above it every borrower would be alerted at once. */
export const MAX_HEALTH_FACTOR_THRESHOLD = 100;

/**
 * Highest `value_change_pct` accepted, percent: a position's value rising elevenfold. Above it the
 * condition would practically never fire: more likely a unit mistake (basis points) than a wish.
 */
export const MAX_VALUE_CHANGE_PCT = 1000;

/** The position types of the positions endpoint (`type`), as `position_types` names them. */
export const POSITION_TYPES = [
  "AmmV2",
  "Nft",
  "NftV4",
  "Tokenized",
  "LendingV2",
  "LendingV2Fork",
  "LendingV3",
  "Erc4626",
  "YieldSplit",
  "RestakeStrategy",
] as const satisfies ReadonlyArray<Position["type"]>;
// Every type the positions endpoint has is listed: a new one fails to compile here until added.
type Unlisted = Exclude<Position["type"], (typeof POSITION_TYPES)[number]>;
const everyTypeListed: [Unlisted] extends [never] ? true : Unlisted = true;
void everyTypeListed;
export const PositionTypeName = Schema.Literal(...POSITION_TYPES);

/** Most entries of `position_types` or `protocols` a request may send (duplicates included). */
export const MAX_FILTER_NAMES = 50;
/** Longest protocol name accepted in `protocols`. */
export const MAX_PROTOCOL_NAME_LENGTH = 64;

const PositionTypesInput = Schema.Array(PositionTypeName).pipe(Schema.maxItems(MAX_FILTER_NAMES));
const ProtocolsInput = Schema.Array(
  Schema.String.pipe(
    Schema.pattern(/^[A-Za-z0-9][A-Za-z0-9 ._-]*$/),
    Schema.maxLength(MAX_PROTOCOL_NAME_LENGTH),
  ).annotations({
    message: () =>
      `must be a protocol name as positions show it (letters, digits, space, ".", "_" or "-", at most ${MAX_PROTOCOL_NAME_LENGTH} characters)`,
  }),
).pipe(Schema.maxItems(MAX_FILTER_NAMES));

/**
 * What a `positions` webhook alerts on (reference: docs/webhooks.md, "Position alerts"). Unknown
 * condition kinds are refused rather than ignored: a misspelt one would otherwise never fire.
 */
export const PositionConditions = Schema.Struct({
  health_factor_below: Schema.optional(
    Schema.Number.pipe(
      Schema.finite(),
      Schema.greaterThan(1),
      Schema.lessThanOrEqualTo(MAX_HEALTH_FACTOR_THRESHOLD),
    ).annotations({
      message: () =>
        `must be a number above 1 (a health factor of 1 is already liquidatable) and at most ${MAX_HEALTH_FACTOR_THRESHOLD}`,
    }),
  ),
  liquidated: Schema.optional(
    Schema.Literal(true).annotations({
      message: () => "must be true (leave it out not to be alerted of liquidations)",
    }),
  ),
  out_of_range: Schema.optional(
    Schema.Literal(true).annotations({
      message: () => "must be true (leave it out not to be alerted when a position leaves its range)",
    }),
  ),
  in_range: Schema.optional(
    Schema.Literal(true).annotations({
      message: () => "must be true (leave it out not to be alerted when a position re-enters its range)",
    }),
  ),
  value_change_pct: Schema.optional(
    Schema.Number.pipe(
      Schema.finite(),
      Schema.greaterThan(0),
      Schema.lessThanOrEqualTo(MAX_VALUE_CHANGE_PCT),
    ).annotations({
      message: () =>
        `must be a number above 0 and at most ${MAX_VALUE_CHANGE_PCT}: a percent of the position's USD value (10 means 10 %)`,
    }),
  ),
}).annotations({
  identifier: "PositionConditions",
  parseOptions: { onExcessProperty: "error" },
  description: "Alert conditions of a `positions` webhook; at least one is required.",
});

/**
 * A webhook's optional filters (spec 2.1, 7), each `null` when unset, as the store keeps them and
 * the admin shows them; `chain_ids` (also a filter, `null` for every chain) is always present.
 * Every other list of the filters (the resource, create, update, the record, the checks) is made
 * from these, so a new filter is declared here once.
 */
export const OPTIONAL_FILTERS = [
  "transaction_type",
  "counterparty",
  "activity_type",
  "asset_type",
  "token_address",
  "conditions",
  "position_types",
  "protocols",
] as const;
export type OptionalFilter = (typeof OPTIONAL_FILTERS)[number];

export const WebhookFilterFields = {
  chain_ids: Schema.NullOr(Schema.Array(Schema.Int)),
  transaction_type: Schema.NullOr(TransactionType),
  counterparty: Schema.NullOr(Schema.String),
  activity_type: Schema.NullOr(ActivityType),
  asset_type: Schema.NullOr(AssetType),
  token_address: Schema.NullOr(Schema.String),
  /** Records written before `positions` webhooks existed lack it: read as unset. */
  conditions: Schema.optionalWith(Schema.NullOr(PositionConditions), { default: () => null }),
  /** `positions` webhooks only: alerts of positions of these types (the positions endpoint's `type`). */
  position_types: Schema.optionalWith(Schema.NullOr(Schema.Array(PositionTypeName)), { default: () => null }),
  /** `positions` webhooks only: alerts of positions of these protocols (the positions' `protocol`). */
  protocols: Schema.optionalWith(Schema.NullOr(Schema.Array(Schema.String)), { default: () => null }),
} satisfies Record<"chain_ids" | OptionalFilter, Schema.Struct.Field>;

/** The filters as a create or an update sends them: each may be left out; addresses are checked as addresses. */
const FilterInputFields = {
  chain_ids: Schema.optional(WebhookFilterFields.chain_ids),
  transaction_type: Schema.optional(WebhookFilterFields.transaction_type),
  counterparty: Schema.optional(Schema.NullOr(Address)),
  activity_type: Schema.optional(WebhookFilterFields.activity_type),
  asset_type: Schema.optional(WebhookFilterFields.asset_type),
  token_address: Schema.optional(Schema.NullOr(Address)),
  conditions: Schema.optional(Schema.NullOr(PositionConditions)),
  position_types: Schema.optional(Schema.NullOr(PositionTypesInput)),
  protocols: Schema.optional(Schema.NullOr(ProtocolsInput)),
};

/** The webhook resource (spec 2.1). Optional filters appear only when set. */
export class Webhook extends Schema.Class<Webhook>("Webhook")({
  id: Schema.UUID,
  team_id: Schema.String,
  name: Schema.String,
  type: WebhookType,
  url: Schema.String,
  active: Schema.Boolean,
  created_at: Schema.String,
  updated_at: Schema.String,
  chain_ids: WebhookFilterFields.chain_ids,
  transaction_type: Schema.optional(WebhookFilterFields.transaction_type),
  counterparty: Schema.optional(WebhookFilterFields.counterparty),
  activity_type: Schema.optional(WebhookFilterFields.activity_type),
  asset_type: Schema.optional(WebhookFilterFields.asset_type),
  token_address: Schema.optional(WebhookFilterFields.token_address),
  /** `positions` webhooks only. */
  conditions: Schema.optional(PositionConditions),
  /** `positions` webhooks only: alert only of positions of these types. */
  position_types: Schema.optional(Schema.Array(PositionTypeName)),
  /** `positions` webhooks only: alert only of positions of these protocols. */
  protocols: Schema.optional(Schema.Array(Schema.String)),
  /** Signing secret, present only in the create and rotate responses. */
  secret: Schema.optional(Schema.String),
}) {}

export const CreateWebhookBody = Schema.Struct({
  name: Schema.String,
  url: Schema.String,
  type: WebhookType,
  addresses: Schema.Array(Address),
  ...FilterInputFields,
});

/** A field PATCH refuses, with the sentence that says where it is changed instead. */
const NotUpdatable = (reason: string) =>
  Schema.optional(
    Schema.Never.annotations({ message: () => reason, description: `Not accepted: ${reason}.` }),
  );

export const UpdateWebhookBody = Schema.Struct({
  name: Schema.optional(Schema.NullOr(Schema.String)),
  url: Schema.optional(Schema.NullOr(Schema.String)),
  active: Schema.optional(Schema.NullOr(Schema.Boolean)),
  ...FilterInputFields,
  type: NotUpdatable(
    "cannot be changed: create a new webhook of the other type (and manage addresses with PUT or PATCH /beta/evm/subscriptions/webhooks/{webhookId}/addresses)",
  ),
  addresses: NotUpdatable(
    "cannot be changed here: use PUT or PATCH /beta/evm/subscriptions/webhooks/{webhookId}/addresses",
  ),
});

export class WebhookList extends Schema.Class<WebhookList>("WebhookList")({
  webhooks: Schema.Array(Webhook),
  next_offset: Schema.optional(Schema.String),
}) {}

export class AddressList extends Schema.Class<AddressList>("AddressList")({
  addresses: Schema.Array(Schema.String),
  next_offset: Schema.optional(Schema.String),
}) {}

const WebhookIdParams = Schema.Struct({
  webhookId: Schema.UUID.annotations({ message: () => "must be a webhook id (a UUID)" }),
});
const PageQuery = Schema.Struct({
  limit: Schema.optional(Schema.String.annotations({ description: "1 to 100, default 100." })),
  offset: Schema.optional(Schema.String.annotations({ description: "Cursor from `next_offset`." })),
});
const Empty = Schema.Struct({});
const base = "/beta/evm/subscriptions/webhooks";
const common = { auth: "key", group: "webhooks", responseContentType: "application/json" } as const;

export const createWebhook = endpoint({
  ...common,
  operationId: "createWebhook",
  method: "POST",
  path: base,
  subject: "svc.beta.evm.webhooks.create",
  summary: "Create a webhook. The response carries its signing `secret`, shown once. 0 CU.",
  params: Schema.Struct({}),
  query: Schema.Struct({}),
  body: CreateWebhookBody,
  response: Webhook,
});

export const listWebhooks = endpoint({
  ...common,
  operationId: "listWebhooks",
  method: "GET",
  path: base,
  subject: "svc.beta.evm.webhooks.list",
  summary: "The team's webhooks, active and inactive, cursor-paged. 0 CU.",
  params: Schema.Struct({}),
  query: PageQuery,
  body: undefined,
  response: WebhookList,
});

export const getWebhook = endpoint({
  ...common,
  operationId: "getWebhook",
  method: "GET",
  path: `${base}/{webhookId}`,
  subject: "svc.beta.evm.webhooks.get",
  summary: "One webhook, with the optional filters that are set. 0 CU.",
  params: WebhookIdParams,
  query: Schema.Struct({}),
  body: undefined,
  response: Webhook,
});

export const updateWebhook = endpoint({
  ...common,
  operationId: "updateWebhook",
  method: "PATCH",
  path: `${base}/{webhookId}`,
  subject: "svc.beta.evm.webhooks.update",
  summary:
    "Change only the given fields; `null` clears a filter; `active` pauses or resumes deliveries. 0 CU.",
  params: WebhookIdParams,
  query: Schema.Struct({}),
  body: UpdateWebhookBody,
  response: Webhook,
});

export const deleteWebhook = endpoint({
  ...common,
  operationId: "deleteWebhook",
  method: "DELETE",
  path: `${base}/{webhookId}`,
  subject: "svc.beta.evm.webhooks.delete",
  summary: "Delete a webhook permanently. 0 CU.",
  params: WebhookIdParams,
  query: Schema.Struct({}),
  body: undefined,
  response: Empty,
});

export const getWebhookAddresses = endpoint({
  ...common,
  operationId: "getWebhookAddresses",
  method: "GET",
  path: `${base}/{webhookId}/addresses`,
  subject: "svc.beta.evm.webhooks.addresses.get",
  summary: "The subscribed addresses, cursor-paged. 0 CU.",
  params: WebhookIdParams,
  query: PageQuery,
  body: undefined,
  response: AddressList,
});

export const replaceWebhookAddresses = endpoint({
  ...common,
  operationId: "replaceWebhookAddresses",
  method: "PUT",
  path: `${base}/{webhookId}/addresses`,
  subject: "svc.beta.evm.webhooks.addresses.replace",
  summary: "Replace the whole address list. 0 CU.",
  params: WebhookIdParams,
  query: Schema.Struct({}),
  body: Schema.Struct({ addresses: Schema.Array(Address) }),
  response: Empty,
});

export const updateWebhookAddresses = endpoint({
  ...common,
  operationId: "updateWebhookAddresses",
  method: "PATCH",
  path: `${base}/{webhookId}/addresses`,
  subject: "svc.beta.evm.webhooks.addresses.update",
  summary: "Remove `remove_addresses`, then add `add_addresses`. 0 CU.",
  params: WebhookIdParams,
  query: Schema.Struct({}),
  body: Schema.Struct({
    add_addresses: Schema.optional(Schema.Array(Address)),
    remove_addresses: Schema.optional(Schema.Array(Address)),
  }),
  response: Empty,
});

export const rotateWebhookSecret = endpoint({
  ...common,
  operationId: "rotateWebhookSecret",
  method: "POST",
  path: `${base}/{webhookId}/secret/rotate`,
  subject: "svc.beta.evm.webhooks.secret.rotate",
  summary: "Issue a new signing secret; the previous one keeps signing alongside it for 24 hours. 0 CU.",
  params: WebhookIdParams,
  query: Schema.Struct({}),
  body: undefined,
  response: Webhook,
});

export const webhookEndpoints = [
  createWebhook,
  listWebhooks,
  getWebhook,
  updateWebhook,
  deleteWebhook,
  getWebhookAddresses,
  replaceWebhookAddresses,
  updateWebhookAddresses,
  rotateWebhookSecret,
] as const;
