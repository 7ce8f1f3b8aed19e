/**
 * Key layout of webhook state in JetStream KV.
 *
 * Bucket `webhooks` (the source of truth; every API worker reads and writes it):
 * - `hook.<webhook_id>`      -> WebhookRecord JSON (resource fields, secrets). Its
 *   revision is the webhook's version: every change is a revision-checked update.
 * - `addresses.<webhook_id>` -> `{"addresses": [...]}`, lower-case, sorted, deduplicated.
 *   Kept apart from the record so address changes never rewrite (or race with) settings.
 * - `team.<team_id>`         -> `{"ids": [...]}`, the team's webhook ids, sorted (UUIDv7,
 *   so by creation time). A create reserves its id here with a revision check, which is
 *   what makes WEBHOOK_MAX_PER_TEAM exact under concurrent creates.
 *
 * Bucket `webhook_addresses` (the notifier's index, address -> webhooks):
 * - `<address>.<webhook_id>` -> `{"rev": R, "member": true|false}`, where R is the
 *   revision of `addresses.<webhook_id>` that last added or removed the address. A
 *   writer only replaces an entry carrying a lower R, so entries converge to the
 *   latest list even when two address changes race. `member: false` entries are
 *   tombstones (kept so an older writer cannot resurrect the address). The notifier
 *   watches `<address>.>` or the whole bucket and must still check that
 *   `hook.<webhook_id>` exists and is active.
 */
export const hookKey = (id: string) => `hook.${id}`;
export const addressesKey = (id: string) => `addresses.${id}`;
export const teamKey = (teamId: string) => `team.${teamId}`;
export const indexKey = (address: string, id: string) => `${address}.${id}`;

/** Watch filter of every webhook record. */
export const HOOKS_FILTER = "hook.>";
export const HOOK_PREFIX = "hook.";
