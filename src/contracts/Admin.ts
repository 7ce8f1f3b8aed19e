import { Schema } from "effect";
import { ApiKeyRecord, Team } from "../domain/ApiKey.js";
import { UsageRow } from "../domain/Usage.js";
import { ChainReachFields } from "./ChainReach.js";
import { WebhookFilterFields, WebhookType } from "./Webhooks.js";

/**
 * Operator operations on `admin.<area>.<verb>` subjects, served by the API
 * workers and called by the TUI and the admin CLI. Only the `admin` NATS user may
 * publish on them (nats.conf), so they carry no API key.
 */
export interface AdminOperation<P extends Schema.Schema.AnyNoContext, R extends Schema.Schema.AnyNoContext> {
  readonly subject: string;
  readonly payload: P;
  readonly response: R;
}

const operation = <P extends Schema.Schema.AnyNoContext, R extends Schema.Schema.AnyNoContext>(
  subject: string,
  payload: P,
  response: R,
): AdminOperation<P, R> => ({ subject, payload, response });

export const KeyListing = Schema.Struct({ ...ApiKeyRecord.fields, team_name: Schema.String });

export const adminCreateKey = operation(
  "admin.keys.create",
  Schema.Struct({
    team: Schema.String,
    requests_per_second: Schema.optional(Schema.Number.pipe(Schema.positive())),
    burst: Schema.optional(Schema.Int.pipe(Schema.positive())),
  }),
  Schema.Struct({ key: Schema.String, record: ApiKeyRecord, team: Team }),
);

export const adminListKeys = operation(
  "admin.keys.list",
  Schema.Struct({}),
  Schema.Struct({ keys: Schema.Array(KeyListing) }),
);

export const adminRevokeKey = operation(
  "admin.keys.revoke",
  Schema.Struct({ key_id: Schema.String }),
  Schema.Struct({ record: ApiKeyRecord }),
);

export const adminListTeams = operation(
  "admin.teams.list",
  Schema.Struct({}),
  Schema.Struct({ teams: Schema.Array(Team) }),
);

export const adminSetTeamQuota = operation(
  "admin.teams.quota.set",
  Schema.Struct({ team: Schema.String, monthly_cu_quota: Schema.NullOr(Schema.NonNegativeInt) }),
  Schema.Struct({ team: Team }),
);

export const adminGetUsage = operation(
  "admin.usage.get",
  Schema.Struct({
    /** ISO time; default 24 hours ago. */
    from: Schema.optional(Schema.String),
    /** ISO time; default now. */
    to: Schema.optional(Schema.String),
    team_id: Schema.optional(Schema.String),
  }),
  Schema.Struct({ rows: Schema.Array(UsageRow) }),
);

export const ChainStatus = Schema.Struct({
  chain_id: Schema.Number,
  name: Schema.String,
  head: Schema.NullOr(Schema.Number),
  processed: Schema.NullOr(Schema.Number),
  /** Hash of the processed block: with the index checkpoint's, it tells a replaced block apart. */
  processed_hash: Schema.optionalWith(Schema.NullOr(Schema.String), { exact: true }),
  /** Hash of its parent: an index one block behind the processed block must be on it. */
  processed_parent_hash: Schema.optionalWith(Schema.NullOr(Schema.String), { exact: true }),
  lag: Schema.NullOr(Schema.Number),
  mode: Schema.Literal("starting", "history", "live"),
  events_per_second: Schema.Number,
  blocks_published: Schema.Number,
  reorgs: Schema.Number,
  rpc_errors: Schema.Number,
  last_error: Schema.NullOr(Schema.String),
  /** CHAIN_EVENTS refuses the chain's blocks because the JetStream store is full. */
  store_full: Schema.optional(Schema.Boolean),
  updated_at: Schema.String,
  /** Internal native transfers: read, not configured, or configured but no endpoint serves traces. */
  traces: Schema.optional(Schema.Literal("on", "off", "unavailable")),
  /** First block of the index's unbroken history: older activity is not in the index. */
  indexed_from: Schema.optional(Schema.Number),
  /** On a chain indexed for discovered wallets only (`index_wallets`), how many wallets the index records. */
  indexed_wallets: Schema.optional(Schema.NonNegativeInt),
  ...ChainReachFields,
});

export const adminChainsStatus = operation(
  "admin.chains.status",
  Schema.Struct({}),
  Schema.Struct({ chains: Schema.Array(ChainStatus) }),
);

export const adminIndexWallet = operation(
  "admin.index.wallet",
  Schema.Struct({ wallet: Schema.String.pipe(Schema.pattern(/^0x[0-9a-fA-F]{40}$/)) }),
  Schema.Struct({
    tokens: Schema.Array(
      Schema.Struct({
        chain_id: Schema.Number,
        token: Schema.String,
        standard: Schema.Literal("erc20", "erc721", "erc1155"),
        first_block: Schema.Number,
      }),
    ),
  }),
);

/** One row of the operator's webhook list: every team's webhooks, without filters or secrets. */
export const WebhookSummary = Schema.Struct({
  id: Schema.String,
  team_id: Schema.String,
  team_name: Schema.String,
  name: Schema.String,
  type: WebhookType,
  url: Schema.String,
  active: Schema.Boolean,
  address_count: Schema.NonNegativeInt,
  created_at: Schema.String,
  updated_at: Schema.String,
});

export const WebhookSortKey = Schema.Literal("team", "name", "type", "active", "addresses", "created");

/** Every team's webhooks, filtered, sorted and paged on the server, so thousands stay cheap to show. */
export const adminListWebhooks = operation(
  "admin.webhooks.list",
  Schema.Struct({
    /** Rows to skip after filtering and sorting; default 0. */
    offset: Schema.optional(Schema.NonNegativeInt),
    /** Rows to return, 1 to 500; default 100. */
    limit: Schema.optional(Schema.Int.pipe(Schema.between(1, 500))),
    /** Case-insensitive text found in the name, id, URL or team name. */
    search: Schema.optional(Schema.String),
    active: Schema.optional(Schema.Boolean),
    type: Schema.optional(WebhookType),
    team_id: Schema.optional(Schema.String),
    /** Default `team` (then name); ties are broken by id. */
    sort: Schema.optional(WebhookSortKey),
    descending: Schema.optional(Schema.Boolean),
  }),
  Schema.Struct({
    webhooks: Schema.Array(WebhookSummary),
    offset: Schema.NonNegativeInt,
    /** Webhooks matching the filters. */
    total: Schema.NonNegativeInt,
    /** Webhooks of every team. */
    count: Schema.NonNegativeInt,
  }),
);

/** A webhook's filters, `null` when unset (`chain_ids: null` means every chain). */
export const WebhookFilters = Schema.Struct(WebhookFilterFields);

export const AdminWebhook = Schema.Struct({ ...WebhookSummary.fields, filters: WebhookFilters });

/** One webhook of any team with its filters and one page of its sorted addresses. */
export const adminGetWebhook = operation(
  "admin.webhooks.get",
  Schema.Struct({
    webhook_id: Schema.String,
    addresses_offset: Schema.optional(Schema.NonNegativeInt),
    /** 1 to 1000; default 100. */
    addresses_limit: Schema.optional(Schema.Int.pipe(Schema.between(1, 1000))),
  }),
  Schema.Struct({
    webhook: AdminWebhook,
    addresses: Schema.Array(Schema.String),
    addresses_offset: Schema.NonNegativeInt,
  }),
);

/** Pauses or resumes a webhook the way PATCH `{"active": ...}` does (its actor follows). */
export const adminSetWebhookActive = operation(
  "admin.webhooks.active.set",
  Schema.Struct({ webhook_id: Schema.String, active: Schema.Boolean }),
  Schema.Struct({ webhook: AdminWebhook, changed: Schema.Boolean }),
);

/** Rotates the signing secret as POST .../secret/rotate does; the answer is the only place the secret shows. */
export const adminRotateWebhookSecret = operation(
  "admin.webhooks.secret.rotate",
  Schema.Struct({ webhook_id: Schema.String }),
  Schema.Struct({ webhook: AdminWebhook, secret: Schema.String }),
);

/**
 * Change notifications operator tools may subscribe to (nats.conf lets the
 * `admin` user subscribe to exactly these): a message means "the area changed,
 * read it again"; its payload is the service's internal value (webhook records
 * carry only sealed secrets) and is not a contract.
 */
export const ADMIN_CHANGE_SUBJECTS = {
  chains: "$KV.ingest_status.>",
  webhooks: "$KV.webhooks.>",
  usage: "$KV.usage.>",
  keys: "$KV.keys.>",
} as const;
export type AdminChangeArea = keyof typeof ADMIN_CHANGE_SUBJECTS;

/** One HTTP attempt of a webhook delivery, as operators see it. */
export const DeliveryAttempt = Schema.Struct({
  /** The delivery's `webhook-id`. */
  delivery_id: Schema.String,
  /** ISO time the attempt started. */
  at: Schema.String,
  /** 0 for a first attempt (`svc-webhook-retry-index`). */
  retry_index: Schema.NonNegativeInt,
  /** HTTP status, or null when no response came (refused, reset, timeout, blocked address). */
  status: Schema.NullOr(Schema.Int),
  latency_ms: Schema.NonNegative,
  outcome: Schema.Literal("delivered", "failed", "dead_lettered", "gone"),
  error: Schema.NullOr(Schema.String),
});

/** A delivery that failed its last scheduled attempt; kept until redelivered. */
export const DeadLetter = Schema.Struct({
  delivery_id: Schema.String,
  chain_id: Schema.Int,
  block_number: Schema.NonNegativeInt,
  block_hash: Schema.String,
  /** A reorg retraction. */
  removed: Schema.Boolean,
  events: Schema.NonNegativeInt,
  attempts: Schema.NonNegativeInt,
  last_status: Schema.NullOr(Schema.Int),
  last_error: Schema.NullOr(Schema.String),
  /** ISO time the delivery was queued. */
  created_at: Schema.String,
});

/** Delivery figures of one webhook, summed over every API node's outbox. */
export const WebhookDeliveryStats = Schema.Struct({
  webhook_id: Schema.String,
  /** Deliveries answered with a 2xx. */
  delivered: Schema.NonNegativeInt,
  /** Failed attempts (each retry that failed counts). */
  failed: Schema.NonNegativeInt,
  /** Queued deliveries that failed at least once and wait for their next attempt. */
  retrying: Schema.NonNegativeInt,
  /** Deliveries in the dead-letter list now. */
  dead_lettered: Schema.NonNegativeInt,
  /** Deliveries ever dead-lettered (redelivered ones included). */
  dead_lettered_total: Schema.NonNegativeInt,
  /** Deliveries waiting to be sent (retrying included). */
  queued: Schema.NonNegativeInt,
  /** Events delivered (2 CU each by default). */
  events_delivered: Schema.NonNegativeInt,
  last_status: Schema.NullOr(Schema.Int),
  last_latency_ms: Schema.NullOr(Schema.NonNegative),
  last_attempt_at: Schema.NullOr(Schema.String),
  /** ISO time of the next scheduled attempt of the queue head, when it is waiting to retry. */
  next_attempt_at: Schema.NullOr(Schema.String),
  /** Newest first, at most 20. */
  recent_attempts: Schema.Array(DeliveryAttempt),
  /** Oldest first, at most 20. */
  dead_letters: Schema.Array(DeadLetter),
  /** Outboxes the figures come from: always 1 now that every API process shares the replicated outbox. */
  nodes: Schema.NonNegativeInt,
});

/** Per-webhook delivery figures (counts, last status and latency, recent attempts, dead letters). */
export const adminWebhookDeliveries = operation(
  "admin.webhooks.deliveries.get",
  Schema.Struct({ webhook_ids: Schema.Array(Schema.String).pipe(Schema.minItems(1), Schema.maxItems(500)) }),
  Schema.Struct({ webhooks: Schema.Array(WebhookDeliveryStats) }),
);

/** Queues a webhook's dead-lettered deliveries again (same webhook-ids, attempts reset), on every node. */
export const adminRedeliverWebhook = operation(
  "admin.webhooks.deliveries.redeliver",
  Schema.Struct({ webhook_id: Schema.String }),
  Schema.Struct({ requeued: Schema.NonNegativeInt }),
);

/** Error reply of an admin operation (also in the Nats-Service-Error headers). */
export const AdminError = Schema.Struct({ error: Schema.String, code: Schema.String });
