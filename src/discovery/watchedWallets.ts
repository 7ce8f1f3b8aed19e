import type { NatsConnection } from "@nats-io/transport-node";
import { Context, Effect, Layer, Schema } from "effect";
import { Chains } from "../chains/Chains.js";
import { promiseLog } from "../lib/promiseLog.js";
import { Discovery } from "./Discovery.js";

/**
 * Wallets a webhook started watching, told to every API worker: core NATS, no queue group, so each
 * worker (the one that took the call included) queues their discovery in its own index. Each worker
 * keeps its own LevelDB, so a wallet one worker discovered is not known to the others; without this,
 * only the worker that took the webhook call would be ready, and a first request balanced onto
 * another would pay the sweep and warn.
 */
export const WATCHED_WALLETS_SUBJECT = "discovery.watched";

/** Addresses per message: 10,000 addresses are about 430 KB of JSON, well inside NATS's payload cap. */
const ADDRESSES_PER_MESSAGE = 10_000;

const Addresses = Schema.Array(Schema.String.pipe(Schema.pattern(/^0x[0-9a-fA-F]{40}$/)));

/**
 * One announcement: the webhook's chains (null: all) and some of the addresses it started
 * watching, with its id (absent from older workers: a claim then nobody withdraws).
 */
const Watched = Schema.Struct({
  chain_ids: Schema.NullOr(Schema.Array(Schema.Int)),
  addresses: Addresses,
  webhook_id: Schema.optional(Schema.String),
});

/**
 * The webhook stopped watching some addresses (it was deleted, or they were removed), or stopped
 * watching some chains (`chain_ids`; absent: every chain): its claim on them is withdrawn. No
 * `addresses` field, so an older worker skips it rather than queue them; one that predates
 * `chain_ids` withdraws the claim on every chain, which costs only a discovery left to the
 * wallet's first request.
 */
const Unwatched = Schema.Struct({
  webhook_id: Schema.String,
  unwatched: Addresses,
  chain_ids: Schema.optional(Schema.Array(Schema.Int)),
});

const Announcement = Schema.parseJson(Schema.Union(Watched, Unwatched));
const decodeAnnouncement = Schema.decodeUnknownEither(Announcement);
const encodeAnnouncement = Schema.encodeSync(Announcement);

export class WatchedWallets extends Context.Tag("app/discovery/WatchedWallets")<
  WatchedWallets,
  {
    /**
     * Tells every API worker to discover `addresses` on `chainIds` (null: every chain) in the
     * background, for the webhook `webhookId`.
     */
    readonly announce: (
      chainIds: ReadonlyArray<number> | null,
      addresses: ReadonlyArray<string>,
      webhookId?: string,
    ) => Effect.Effect<void>;
    /**
     * Tells every API worker that the webhook stopped watching `addresses` on `chainIds` (every
     * chain when not given): those waiting for it alone there are not discovered.
     */
    readonly withdraw: (
      webhookId: string,
      addresses: ReadonlyArray<string>,
      chainIds?: ReadonlyArray<number>,
    ) => Effect.Effect<void>;
  }
>() {}

/** `addresses` in slices that fit NATS's payload cap, each made a message by `message`. */
const sliced = (
  addresses: ReadonlyArray<string>,
  message: (slice: ReadonlyArray<string>) => typeof Announcement.Type,
): ReadonlyArray<string> => {
  const out: Array<string> = [];
  for (let at = 0; at < addresses.length; at += ADDRESSES_PER_MESSAGE)
    out.push(encodeAnnouncement(message(addresses.slice(at, at + ADDRESSES_PER_MESSAGE))));
  return out;
};

/** The announcements of `addresses`, split to fit NATS's payload cap. */
export const announcements = (
  chainIds: ReadonlyArray<number> | null,
  addresses: ReadonlyArray<string>,
  webhookId?: string,
): ReadonlyArray<string> =>
  sliced(addresses, (slice) => ({
    chain_ids: chainIds === null ? null : [...chainIds],
    addresses: slice,
    ...(webhookId === undefined ? {} : { webhook_id: webhookId }),
  }));

/** The withdrawals of the webhook's claim on `addresses` (on `chainIds` only, if given), split to fit NATS's payload cap. */
export const withdrawals = (
  webhookId: string,
  addresses: ReadonlyArray<string>,
  chainIds?: ReadonlyArray<number>,
): ReadonlyArray<string> =>
  sliced(addresses, (slice) => ({
    webhook_id: webhookId,
    unwatched: slice,
    ...(chainIds === undefined ? {} : { chain_ids: [...chainIds] }),
  }));

/**
 * This worker's side: every announcement (its own included) queues the wallets on the chains it
 * names that this process serves, and every withdrawal takes the webhook's claim off the wallets
 * still waiting. A message that is neither is logged and skipped. If a message cannot be published
 * (the connection is down), this worker applies it itself, so the worker that took the call is
 * never left out.
 */
export const layer = (nc: NatsConnection): Layer.Layer<WatchedWallets, never, Discovery | Chains> =>
  Layer.scoped(
    WatchedWallets,
    Effect.gen(function* () {
      const discovery = yield* Discovery;
      const { chains } = yield* Chains;
      const log = yield* promiseLog;
      const queue = (
        chainIds: ReadonlyArray<number> | null,
        addresses: ReadonlyArray<string>,
        webhookId: string | undefined,
      ) =>
        discovery.prefetch(
          chainIds === null ? chains : chains.filter((chain) => chainIds.includes(chain.chain_id)),
          addresses,
          webhookId,
        );
      const apply = (told: typeof Announcement.Type) =>
        "unwatched" in told
          ? discovery.unprefetch(told.webhook_id, told.unwatched, told.chain_ids)
          : queue(told.chain_ids, told.addresses, told.webhook_id);
      /** Publishes the messages; if they cannot go out (the connection is down), this worker applies them itself. */
      const tell = (payloads: ReadonlyArray<string>, fallback: () => void) =>
        Effect.sync(() => {
          try {
            for (const payload of payloads) nc.publish(WATCHED_WALLETS_SUBJECT, payload);
          } catch {
            fallback();
          }
        });
      const subscription = yield* Effect.acquireRelease(
        Effect.sync(() => nc.subscribe(WATCHED_WALLETS_SUBJECT)),
        (sub) => Effect.sync(() => sub.unsubscribe()),
      );
      yield* Effect.forkScoped(
        Effect.promise(async () => {
          for await (const message of subscription) {
            const announcement = decodeAnnouncement(message.string());
            if (announcement._tag === "Right") apply(announcement.right);
            else log.warning("a watched-wallets message that is not an announcement was skipped");
          }
        }),
      );
      return {
        announce: (chainIds, addresses, webhookId) =>
          addresses.length === 0 || chainIds?.length === 0
            ? Effect.void
            : tell(announcements(chainIds, addresses, webhookId), () =>
                queue(chainIds, addresses, webhookId),
              ),
        withdraw: (webhookId, addresses, chainIds) =>
          addresses.length === 0 || chainIds?.length === 0
            ? Effect.void
            : tell(withdrawals(webhookId, addresses, chainIds), () =>
                discovery.unprefetch(webhookId, addresses, chainIds),
              ),
      };
    }),
  );
