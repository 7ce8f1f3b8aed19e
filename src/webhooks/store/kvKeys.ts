/**
 * Key layout of webhook state in JetStream KV.
 *
 * Bucket `webhooks` (every API worker reads and writes it; one value a key, as a list of 100,000
 * addresses is 4.5 MB and older ones are never read):
 * - `hook.<webhook_id>`      -> WebhookRecord JSON (resource fields, secrets). Its
 *   revision is the webhook's version: every change is a revision-checked update.
 * - `addresses.<webhook_id>` -> `{"addresses": [...]}`, lower-case, sorted, deduplicated.
 *   Kept apart from the record so address changes never rewrite (or race with) settings.
 * - `team.<team_id>`         -> `{"ids": [...]}`, the team's webhook ids, sorted (UUIDv7,
 *   so by creation time). A create reserves its id here with a revision check, which is
 *   what makes WEBHOOK_MAX_PER_TEAM exact under concurrent creates.
 *
 * The notifier's address book follows `addresses.>` (AddressBook.ts): one message per webhook,
 * not per address, applied as the difference from the list it held. A list is one value, so
 * concurrent changes of it are settled by the revision check of that one key, and a deleted
 * webhook's list is written empty and then deleted, which ends its matches.
 */
export const hookKey = (id: string) => `hook.${id}`;
export const addressesKey = (id: string) => `addresses.${id}`;
export const teamKey = (teamId: string) => `team.${teamId}`;

/** Watch filter of every webhook record. */
export const HOOKS_FILTER = "hook.>";
export const HOOK_PREFIX = "hook.";

/** Watch filter of every address list, and the prefix before each list's webhook id. */
export const ADDRESSES_FILTER = "addresses.>";
export const ADDRESSES_PREFIX = "addresses.";

/**
 * Lists a follower of `addresses.>` asks the broker for at a time: what it holds beyond the lists
 * it keeps is then a few of them (the largest, 100,000 addresses at WEBHOOK_MAX_ADDRESSES' ceiling,
 * is 4.5 MB), never the lists of a whole deployment (10M addresses are 450 MB of lists).
 */
export const LISTS_PULL_BATCH = 2;
