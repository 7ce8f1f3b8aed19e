import { Context, type Effect, type Either, Layer } from "effect";
import type { Conflict, InvalidRequest, NotFound, Unavailable } from "../contracts/ApiError.js";
import { changeAddresses, readAddresses } from "./store/addressLists.js";
import { createWebhook } from "./store/createWebhook.js";
import { getOwned, modifyOwned } from "./store/hookRecords.js";
import { listWebhooks } from "./store/listWebhooks.js";
import { removeWebhook } from "./store/removeWebhook.js";
import type { StoreBuckets, Versioned } from "./store/StoreBuckets.js";
import type { WebhookRecord } from "./WebhookRecord.js";

type StoreError = Unavailable | Conflict;

/**
 * Webhooks and their address lists in JetStream KV, scoped to a team: every
 * read and write takes the caller's team id, and another team's webhook is
 * indistinguishable from a missing one (404). Writes are revision-checked and
 * retried, so concurrent requests never lose an update. Key layout: store/kvKeys.ts.
 */
export class WebhookStore extends Context.Tag("app/webhooks/WebhookStore")<
  WebhookStore,
  {
    /** Stores a new webhook with its addresses; 400 when the team is at `maxPerTeam`. */
    readonly create: (
      record: WebhookRecord,
      addresses: ReadonlyArray<string>,
      maxPerTeam: number,
    ) => Effect.Effect<Versioned<WebhookRecord>, InvalidRequest | StoreError>;
    readonly get: (
      teamId: string,
      id: string,
    ) => Effect.Effect<Versioned<WebhookRecord>, NotFound | StoreError>;
    /** One page of the team's webhooks after the id `after`, with the next cursor. */
    readonly list: (
      teamId: string,
      after: string | undefined,
      limit: number,
    ) => Effect.Effect<
      { readonly records: ReadonlyArray<WebhookRecord>; readonly next: string | undefined },
      StoreError
    >;
    /** Applies `change` under a revision check; `undefined` from it means "no effective change". */
    readonly modify: (
      teamId: string,
      id: string,
      change: (record: WebhookRecord) => Either.Either<WebhookRecord | undefined, InvalidRequest>,
    ) => Effect.Effect<
      { readonly record: WebhookRecord; readonly changed: boolean; readonly revision: number },
      NotFound | InvalidRequest | StoreError
    >;
    /** Deletes the webhook (or finishes a delete cut short); answers the addresses its list held then. */
    readonly remove: (
      teamId: string,
      id: string,
    ) => Effect.Effect<ReadonlyArray<string>, NotFound | StoreError>;
    /** The sorted address list. */
    readonly addresses: (
      teamId: string,
      id: string,
    ) => Effect.Effect<ReadonlyArray<string>, NotFound | StoreError>;
    /** Replaces the list with `compute(current)` under a revision check (one KV write, whatever its size). */
    readonly changeAddresses: (
      teamId: string,
      id: string,
      compute: (current: ReadonlyArray<string>) => Either.Either<ReadonlyArray<string>, InvalidRequest>,
    ) => Effect.Effect<void, NotFound | InvalidRequest | StoreError>;
  }
>() {}

export const make = (buckets: StoreBuckets): Context.Tag.Service<WebhookStore> => ({
  create: (record, addresses, maxPerTeam) => createWebhook(buckets, record, addresses, maxPerTeam),
  get: (teamId, id) => getOwned(buckets, teamId, id),
  list: (teamId, after, limit) => listWebhooks(buckets, teamId, after, limit),
  modify: (teamId, id, change) => modifyOwned(buckets, teamId, id, change),
  remove: (teamId, id) => removeWebhook(buckets, teamId, id),
  addresses: (teamId, id) => readAddresses(buckets, teamId, id),
  changeAddresses: (teamId, id, compute) => changeAddresses(buckets, teamId, id, compute),
});

export const layer = (buckets: StoreBuckets): Layer.Layer<WebhookStore> =>
  Layer.succeed(WebhookStore, make(buckets));
