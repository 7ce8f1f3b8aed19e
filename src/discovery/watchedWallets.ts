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

/** One announcement: the webhook's chains (null: all) and some of the addresses it started watching. */
const Announcement = Schema.parseJson(
  Schema.Struct({
    chain_ids: Schema.NullOr(Schema.Array(Schema.Int)),
    addresses: Schema.Array(Schema.String.pipe(Schema.pattern(/^0x[0-9a-fA-F]{40}$/))),
  }),
);
const decodeAnnouncement = Schema.decodeUnknownEither(Announcement);
const encodeAnnouncement = Schema.encodeSync(Announcement);

export class WatchedWallets extends Context.Tag("app/discovery/WatchedWallets")<
  WatchedWallets,
  {
    /** Tells every API worker to discover `addresses` on `chainIds` (null: every chain) in the background. */
    readonly announce: (
      chainIds: ReadonlyArray<number> | null,
      addresses: ReadonlyArray<string>,
    ) => Effect.Effect<void>;
  }
>() {}

/** The announcements of `addresses`, split to fit NATS's payload cap. */
export const announcements = (
  chainIds: ReadonlyArray<number> | null,
  addresses: ReadonlyArray<string>,
): ReadonlyArray<string> => {
  const out: Array<string> = [];
  for (let at = 0; at < addresses.length; at += ADDRESSES_PER_MESSAGE)
    out.push(
      encodeAnnouncement({
        chain_ids: chainIds === null ? null : [...chainIds],
        addresses: addresses.slice(at, at + ADDRESSES_PER_MESSAGE),
      }),
    );
  return out;
};

/**
 * This worker's side: every announcement (its own included) queues the wallets on the chains it
 * names that this process serves. A message that is not an announcement is logged and skipped.
 * If an announcement cannot be published (the connection is down), this worker queues the wallets
 * itself, so the worker that took the call is never left out.
 */
export const layer = (nc: NatsConnection): Layer.Layer<WatchedWallets, never, Discovery | Chains> =>
  Layer.scoped(
    WatchedWallets,
    Effect.gen(function* () {
      const discovery = yield* Discovery;
      const { chains } = yield* Chains;
      const log = yield* promiseLog;
      const queue = (chainIds: ReadonlyArray<number> | null, addresses: ReadonlyArray<string>) =>
        discovery.prefetch(
          chainIds === null ? chains : chains.filter((chain) => chainIds.includes(chain.chain_id)),
          addresses,
        );
      const subscription = yield* Effect.acquireRelease(
        Effect.sync(() => nc.subscribe(WATCHED_WALLETS_SUBJECT)),
        (sub) => Effect.sync(() => sub.unsubscribe()),
      );
      yield* Effect.forkScoped(
        Effect.promise(async () => {
          for await (const message of subscription) {
            const announcement = decodeAnnouncement(message.string());
            if (announcement._tag === "Right")
              queue(announcement.right.chain_ids, announcement.right.addresses);
            else log.warning("a watched-wallets message that is not an announcement was skipped");
          }
        }),
      );
      return {
        announce: (chainIds, addresses) =>
          Effect.sync(() => {
            if (addresses.length === 0) return;
            try {
              for (const payload of announcements(chainIds, addresses))
                nc.publish(WATCHED_WALLETS_SUBJECT, payload);
            } catch {
              queue(chainIds, addresses);
            }
          }),
      };
    }),
  );
