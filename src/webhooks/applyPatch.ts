import { Either } from "effect";
import { InvalidRequest } from "../contracts/ApiError.js";
import type { UpdateWebhookBody } from "../contracts/Webhooks.js";
import { normalisePositionFilters } from "./positionFilterNames.js";
import { checkFilters, checkName, checkUrl, normaliseChainIds } from "./validateSettings.js";
import type { WebhookPolicy } from "./WebhookPolicy.js";
import { optionalFilters, SETTING_FIELDS, WebhookRecord, type WebhookSettings } from "./WebhookRecord.js";

type Policy = WebhookPolicy["Type"];
type Patch = typeof UpdateWebhookBody.Type;

/** Equal settings: lists element by element, the conditions object by its JSON (a patch sends it whole). */
const sameValue = (a: unknown, b: unknown): boolean =>
  Array.isArray(a) && Array.isArray(b)
    ? a.length === b.length && a.every((x, i) => x === b[i])
    : typeof a === "object" && typeof b === "object" && a !== null && b !== null
      ? JSON.stringify(a) === JSON.stringify(b)
      : a === b;

/**
 * The next `updated_at`: now, but always later than the previous one, so two
 * effective changes within one millisecond still read as two changes.
 */
export const nextUpdatedAt = (previous: string, nowMs: number): string =>
  new Date(Math.max(nowMs, Date.parse(previous) + 1)).toISOString();

/**
 * Applies a PATCH body to a stored webhook. Only fields present change; `null`
 * clears a filter (and `chain_ids: null` means all chains), while `null` for
 * `name`, `url` or `active` leaves them as they are (they cannot be cleared).
 * Filters are checked against the stored type. Returns `undefined` when the
 * body changes nothing, so `updated_at` moves on effective changes only.
 */
export const applyPatch = (
  record: WebhookRecord,
  patch: Patch,
  policy: Policy,
  nowMs: number,
): Either.Either<WebhookRecord | undefined, InvalidRequest> => {
  const fieldError =
    (patch.name != null ? checkName(patch.name) : undefined) ??
    (patch.url != null ? checkUrl(patch.url, policy.url) : undefined);
  if (fieldError !== undefined) return Either.left(fieldError);
  let chainIds = record.chain_ids;
  if (patch.chain_ids !== undefined) {
    const normalised = normaliseChainIds(patch.chain_ids, policy.chainIds);
    if (normalised instanceof InvalidRequest) return Either.left(normalised);
    chainIds = normalised;
  }
  const given: WebhookSettings = {
    name: patch.name != null ? patch.name.trim() : record.name,
    url: patch.url ?? record.url,
    active: patch.active ?? record.active,
    chain_ids: chainIds,
    // A filter left out keeps its value; `null` clears it.
    ...optionalFilters(patch, (given, field) => (given === undefined ? record[field] : given)),
  };
  const touched = new Set(Object.keys(patch));
  const filterError = checkFilters(record.type, given, touched);
  if (filterError !== undefined) return Either.left(filterError);
  const next = normalisePositionFilters(given, policy.protocols, touched);
  if (next instanceof InvalidRequest) return Either.left(next);
  if (SETTING_FIELDS.every((field) => sameValue(next[field], record[field]))) return Either.right(undefined);
  return Either.right(
    new WebhookRecord({ ...record, ...next, updated_at: nextUpdatedAt(record.updated_at, nowMs) }),
  );
};
