import { Clock, Effect, Either } from "effect";
import { type KeyBuckets, listTeams } from "../api/keys/KeyStore.js";
import {
  adminGetWebhook,
  adminListWebhooks,
  adminRotateWebhookSecret,
  adminSetWebhookActive,
} from "../contracts/Admin.js";
import { WebhookSupervisor } from "../webhooks/actors/WebhookSupervisor.js";
import { applyPatch, nextUpdatedAt } from "../webhooks/applyPatch.js";
import { generateSecret, rotateSecrets } from "../webhooks/secrets/signingSecret.js";
import { WebhookPolicy } from "../webhooks/WebhookPolicy.js";
import { filtersOf, WebhookRecord } from "../webhooks/WebhookRecord.js";
import { WebhookStore } from "../webhooks/WebhookStore.js";
import { AdminFailure, type AdminHandler, adminHandler } from "./AdminServer.js";
import { WebhookCatalog } from "./WebhookCatalog.js";
import { listPage, toSummary } from "./webhookListing.js";

/** What the webhook admin operations need: the same store, policy and actors as the webhook routes. */
export type WebhookAdminServices = WebhookCatalog | WebhookStore | WebhookPolicy | WebhookSupervisor;

const ADDRESS_PAGE = 100;

const CODES: Record<string, string> = {
  NotFound: "NOT_FOUND",
  InvalidRequest: "INVALID_PAYLOAD",
  Unavailable: "UNAVAILABLE",
  Conflict: "CONFLICT",
};

/** Store errors as failures an operator reads: the store's own sentence, with an admin code. */
const storeFailure = <A, R>(effect: Effect.Effect<A, { _tag: string; message: string }, R>) =>
  Effect.mapError(effect, (error) =>
    error instanceof AdminFailure
      ? error
      : new AdminFailure({ code: CODES[error._tag] ?? "INTERNAL_ERROR", message: error.message }),
  );

const teamNames = (buckets: KeyBuckets) =>
  Effect.map(listTeams(buckets), (teams) => new Map(teams.map((team) => [team.team_id, team.name])));

/** The owning team of a webhook of any team; 404 when there is no such webhook. */
const ownerOf = (id: string) =>
  Effect.flatMap(WebhookCatalog, (catalog) => catalog.teamOf(id)).pipe(
    Effect.flatMap((teamId) =>
      teamId === undefined
        ? Effect.fail(new AdminFailure({ code: "NOT_FOUND", message: `No webhook with id ${id} exists.` }))
        : Effect.succeed(teamId),
    ),
  );

/** The full admin view of a stored webhook: summary, filters and address count. */
const view = (buckets: KeyBuckets, record: WebhookRecord, addresses: ReadonlyArray<string>) =>
  Effect.map(teamNames(buckets), (names) => ({
    ...toSummary(record, addresses.length, names.get(record.team_id) ?? "?"),
    filters: filtersOf(record),
  }));

/** Runs `change` on a webhook of any team through the store, tells its actor, and answers its view. */
const modifyAny = (
  buckets: KeyBuckets,
  webhookId: string,
  change: (
    now: number,
  ) => Effect.Effect<(r: WebhookRecord) => ReturnType<typeof applyPatch>, never, WebhookPolicy>,
) =>
  Effect.gen(function* () {
    const id = webhookId.toLowerCase();
    const teamId = yield* ownerOf(id);
    const store = yield* WebhookStore;
    const now = yield* Clock.currentTimeMillis;
    const result = yield* store.modify(teamId, id, yield* change(now));
    if (result.changed) (yield* WebhookSupervisor).observe(result);
    const webhook = yield* view(buckets, result.record, yield* store.addresses(teamId, id));
    return { webhook, changed: result.changed };
  });

export const makeWebhookAdminHandlers = (
  buckets: KeyBuckets,
): ReadonlyArray<AdminHandler<WebhookAdminServices>> => [
  adminHandler(adminListWebhooks, (query) =>
    storeFailure(
      Effect.gen(function* () {
        const entries = yield* (yield* WebhookCatalog).all;
        return listPage(entries, yield* teamNames(buckets), query);
      }),
    ),
  ),
  adminHandler(adminGetWebhook, (payload) =>
    storeFailure(
      Effect.gen(function* () {
        const id = payload.webhook_id.toLowerCase();
        const teamId = yield* ownerOf(id);
        const store = yield* WebhookStore;
        const { value } = yield* store.get(teamId, id);
        const addresses = yield* store.addresses(teamId, id);
        const offset = payload.addresses_offset ?? 0;
        return {
          webhook: yield* view(buckets, value, addresses),
          addresses: addresses.slice(offset, offset + (payload.addresses_limit ?? ADDRESS_PAGE)),
          addresses_offset: offset,
        };
      }),
    ),
  ),
  adminHandler(adminSetWebhookActive, (payload) =>
    storeFailure(
      modifyAny(buckets, payload.webhook_id, (now) =>
        Effect.map(
          WebhookPolicy,
          (policy) => (record) => applyPatch(record, { active: payload.active }, policy, now),
        ),
      ),
    ),
  ),
  adminHandler(adminRotateWebhookSecret, (payload) => {
    // Drawn once, outside the store's retry loop, so the stored secret is the one answered.
    const secret = generateSecret();
    return storeFailure(
      Effect.map(
        modifyAny(buckets, payload.webhook_id, (now) =>
          Effect.succeed((record) =>
            Either.right(
              new WebhookRecord({
                ...record,
                secrets: rotateSecrets(record.secrets, secret, now),
                updated_at: nextUpdatedAt(record.updated_at, now),
              }),
            ),
          ),
        ),
        ({ webhook }) => ({ webhook, secret }),
      ),
    );
  }),
];
