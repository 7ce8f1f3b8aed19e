import type { adminListWebhooks, WebhookSummary } from "../contracts/Admin.js";
import type { WebhookRecord } from "../webhooks/WebhookRecord.js";
import type { CatalogEntry } from "./WebhookCatalog.js";

type Query = typeof adminListWebhooks.payload.Type;
type Summary = typeof WebhookSummary.Type;

/** Default page size of `admin.webhooks.list`. */
export const DEFAULT_LIMIT = 100;

export const toSummary = (record: WebhookRecord, addressCount: number, teamName: string): Summary => ({
  id: record.id,
  team_id: record.team_id,
  team_name: teamName,
  name: record.name,
  type: record.type,
  url: record.url,
  active: record.active,
  address_count: addressCount,
  created_at: record.created_at,
  updated_at: record.updated_at,
});

const compareBy: Record<NonNullable<Query["sort"]>, (a: Summary, b: Summary) => number> = {
  team: (a, b) => a.team_name.localeCompare(b.team_name) || a.name.localeCompare(b.name),
  name: (a, b) => a.name.localeCompare(b.name),
  type: (a, b) => a.type.localeCompare(b.type),
  active: (a, b) => Number(b.active) - Number(a.active),
  addresses: (a, b) => a.address_count - b.address_count,
  created: (a, b) => a.created_at.localeCompare(b.created_at),
};

const matches = (summary: Summary, query: Query, needle: string | undefined) =>
  (query.active === undefined || summary.active === query.active) &&
  (query.type === undefined || summary.type === query.type) &&
  (query.team_id === undefined || summary.team_id === query.team_id) &&
  (needle === undefined ||
    [summary.name, summary.id, summary.url, summary.team_name].some((field) =>
      field.toLowerCase().includes(needle),
    ));

/** Filters, sorts (ties by id) and pages the catalog for one `admin.webhooks.list` call. */
export const listPage = (
  entries: ReadonlyArray<CatalogEntry>,
  teamNames: ReadonlyMap<string, string>,
  query: Query,
) => {
  const needle = query.search?.trim().toLowerCase() || undefined;
  const compare = compareBy[query.sort ?? "team"];
  const sign = query.descending === true ? -1 : 1;
  const matching = entries
    .map((e) => toSummary(e.record, e.addressCount, teamNames.get(e.record.team_id) ?? "?"))
    .filter((summary) => matches(summary, query, needle))
    .sort((a, b) => sign * compare(a, b) || a.id.localeCompare(b.id));
  const offset = query.offset ?? 0;
  return {
    webhooks: matching.slice(offset, offset + (query.limit ?? DEFAULT_LIMIT)),
    offset,
    total: matching.length,
    count: entries.length,
  };
};
