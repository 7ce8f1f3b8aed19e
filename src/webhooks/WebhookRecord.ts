import { Schema } from "effect";
import {
  OPTIONAL_FILTERS,
  type OptionalFilter,
  Webhook,
  WebhookFilterFields,
  WebhookType,
} from "../contracts/Webhooks.js";
import { type SecretSealer, sealSecrets } from "./secrets/secretSealing.js";
import { WebhookSecrets } from "./secrets/WebhookSecrets.js";

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
  ...WebhookFilterFields,
  secrets: WebhookSecrets,
}) {}

/** The fields a PATCH may change and a create sets (everything but identity, type, times and secrets). */
export type WebhookSettings = Pick<WebhookRecord, "name" | "url" | "active" | "chain_ids" | OptionalFilter>;

export const SETTING_FIELDS = [
  "name",
  "url",
  "active",
  "chain_ids",
  ...OPTIONAL_FILTERS,
] as const satisfies ReadonlyArray<keyof WebhookSettings>;

/** The record's filters, `null` where unset: what the admin shows. */
export const filtersOf = (record: WebhookSettings): Pick<WebhookSettings, "chain_ids" | OptionalFilter> => ({
  chain_ids: record.chain_ids,
  ...optionalFilters(record, (value) => value),
});

/**
 * Each optional filter of `from`, passed through `value` (given the field's name): the one place
 * that walks the list, so a create, a patch and the resource cannot each miss a new filter.
 */
export const optionalFilters = <T extends Partial<Record<OptionalFilter, unknown>>>(
  from: T,
  value: (given: T[OptionalFilter], field: OptionalFilter) => WebhookSettings[OptionalFilter],
): Pick<WebhookSettings, OptionalFilter> =>
  Object.fromEntries(OPTIONAL_FILTERS.map((field) => [field, value(from[field], field)])) as Pick<
    WebhookSettings,
    OptionalFilter
  >;

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
    ...Object.fromEntries(
      OPTIONAL_FILTERS.filter((field) => record[field] !== null).map((field) => [field, record[field]]),
    ),
    ...(secret === undefined ? {} : { secret }),
  });

/** The record with its secrets in stored form, as it is written. */
export const sealRecord = (record: WebhookRecord, sealer: SecretSealer): WebhookRecord =>
  new WebhookRecord({ ...record, secrets: sealSecrets(record.secrets, record.id, sealer) });

/** The KV value of a record; its secrets are sealed on the way, so none is ever stored in the clear. */
export const encodeRecord = (record: WebhookRecord, sealer: SecretSealer): string =>
  JSON.stringify(Schema.encodeSync(WebhookRecord)(sealRecord(record, sealer)));
export const decodeRecord = Schema.decodeUnknownSync(Schema.parseJson(WebhookRecord));
