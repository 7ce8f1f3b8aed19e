import { Schema } from "effect";
import { ActivityType, AssetType, TransactionType, Webhook, WebhookType } from "../contracts/Webhooks.js";
import { type SecretSealer, sealSecrets } from "./secretSealing.js";

/** A signing secret kept after rotation, valid until `expires_at`. */
export const PreviousSecret = Schema.Struct({
  secret: Schema.String,
  /** ISO-8601; after this instant the secret no longer signs. */
  expires_at: Schema.String,
});
export type PreviousSecret = typeof PreviousSecret.Type;

/** The secrets a webhook signs with: the current one and, for 24 h after a rotation, the previous one. */
export const WebhookSecrets = Schema.Struct({
  current: Schema.String,
  previous: Schema.NullOr(PreviousSecret),
});
export type WebhookSecrets = typeof WebhookSecrets.Type;

/**
 * A webhook as stored in KV (`hook.<id>` in the `webhooks` bucket): the
 * resource of spec 2.1 with every filter explicit (`null` when unset) plus its
 * signing secrets, which are never served by GET or list. The secrets are held
 * as stored: sealed (secretSealing.ts), or plain in records written before
 * sealing; signing opens them. Addresses live in their own key (see store/kvKeys.ts).
 */
export class WebhookRecord extends Schema.Class<WebhookRecord>("WebhookRecord")({
  id: Schema.String,
  team_id: Schema.String,
  name: Schema.String,
  type: WebhookType,
  url: Schema.String,
  active: Schema.Boolean,
  created_at: Schema.String,
  updated_at: Schema.String,
  chain_ids: Schema.NullOr(Schema.Array(Schema.Int)),
  transaction_type: Schema.NullOr(TransactionType),
  counterparty: Schema.NullOr(Schema.String),
  activity_type: Schema.NullOr(ActivityType),
  asset_type: Schema.NullOr(AssetType),
  token_address: Schema.NullOr(Schema.String),
  secrets: WebhookSecrets,
}) {}

/** The fields a PATCH may change and a create sets (everything but identity, type, times and secrets). */
export type WebhookSettings = Pick<
  WebhookRecord,
  | "name"
  | "url"
  | "active"
  | "chain_ids"
  | "transaction_type"
  | "counterparty"
  | "activity_type"
  | "asset_type"
  | "token_address"
>;

export const SETTING_FIELDS = [
  "name",
  "url",
  "active",
  "chain_ids",
  "transaction_type",
  "counterparty",
  "activity_type",
  "asset_type",
  "token_address",
] as const satisfies ReadonlyArray<keyof WebhookSettings>;

/** The public resource: filters only when set, never the secrets; `secret` only when given (create, rotate). */
export const toResource = (record: WebhookRecord, secret?: string): Webhook =>
  Webhook.make({
    id: record.id,
    team_id: record.team_id,
    name: record.name,
    type: record.type,
    url: record.url,
    active: record.active,
    created_at: record.created_at,
    updated_at: record.updated_at,
    chain_ids: record.chain_ids,
    ...(record.transaction_type === null ? {} : { transaction_type: record.transaction_type }),
    ...(record.counterparty === null ? {} : { counterparty: record.counterparty }),
    ...(record.activity_type === null ? {} : { activity_type: record.activity_type }),
    ...(record.asset_type === null ? {} : { asset_type: record.asset_type }),
    ...(record.token_address === null ? {} : { token_address: record.token_address }),
    ...(secret === undefined ? {} : { secret }),
  });

/** The record with its secrets in stored form, as it is written. */
export const sealRecord = (record: WebhookRecord, sealer: SecretSealer): WebhookRecord =>
  new WebhookRecord({ ...record, secrets: sealSecrets(record.secrets, record.id, sealer) });

/** The KV value of a record; its secrets are sealed on the way, so none is ever stored in the clear. */
export const encodeRecord = (record: WebhookRecord, sealer: SecretSealer): string =>
  JSON.stringify(Schema.encodeSync(WebhookRecord)(sealRecord(record, sealer)));
export const decodeRecord = Schema.decodeUnknownSync(Schema.parseJson(WebhookRecord));
