import type { KV, KvEntry } from "@nats-io/kv";
import { Effect, type Either } from "effect";
import { Conflict, Unavailable } from "../../contracts/ApiError.js";
import { type KeyedTurns, makeKeyedTurns } from "../../lib/keyedTurns.js";
import { type CasDecision, KvContended, KvStoreFailed, kvCas, liveEntry } from "../../nats/kvCas.js";

export type { CasDecision } from "../../nats/kvCas.js";

const storeUnavailable = (cause: unknown) =>
  new Unavailable({
    code: "STORE_UNAVAILABLE",
    message: `The webhook store cannot answer now; retry shortly (${cause instanceof Error ? cause.message : String(cause)}).`,
  });

/** Runs one KV call; a failure is a 503 (the store cannot answer now). */
export const kvCall = <A>(f: () => Promise<A>): Effect.Effect<A, Unavailable> =>
  Effect.tryPromise({ try: f, catch: storeUnavailable });

/** The live entry of a key, or `null` when absent or deleted. */
export const getLive = (kv: KV, key: string): Effect.Effect<KvEntry | null, Unavailable> =>
  liveEntry(kv, key).pipe(Effect.mapError((failed) => storeUnavailable(failed.cause)));

/**
 * Attempts before a change gives up as 409: one winner per round means a
 * hundred concurrent writers finish well within this with the backoff below.
 */
const MAX_ATTEMPTS = 200;

const backoffMs = (attempt: number) => Math.floor(Math.random() * Math.min(50, 2 + attempt * 2));

/** Each bucket's keys being changed in this process. */
const turnsByBucket = new WeakMap<KV, KeyedTurns>();

const turnsOf = (kv: KV): KeyedTurns => {
  let turns = turnsByBucket.get(kv);
  if (turns === undefined) {
    turns = makeKeyedTurns();
    turnsByBucket.set(kv, turns);
  }
  return turns;
};

/**
 * A revision-checked change of a webhook-store key (`kvCas`): the store failing is a 503, other
 * writers winning every round a 409.
 *
 * Changes of one key made in this process take turns: the revision check
 * alone makes n concurrent writers take n rounds of which each wins one, so
 * a team creating a hundred webhooks at once had its last create wait for
 * about a hundred rounds and, on a busy machine, past the gateway's timeout.
 * Waiting in turn, each writer normally wins its first round; the revision
 * check still settles races with other processes.
 */
export const casModify = <R, E>(
  kv: KV,
  key: string,
  decide: (entry: KvEntry | null) => Either.Either<CasDecision<R>, E>,
): Effect.Effect<{ readonly result: R; readonly revision: number | undefined }, E | Unavailable | Conflict> =>
  turnsOf(kv)(
    key,
    kvCas(kv, key, decide, { maxAttempts: MAX_ATTEMPTS, backoffMs }).pipe(
      Effect.catchIf(
        (error): error is KvStoreFailed | KvContended =>
          error instanceof KvStoreFailed || error instanceof KvContended,
        (error): Effect.Effect<never, Unavailable | Conflict> =>
          error instanceof KvStoreFailed
            ? Effect.fail(storeUnavailable(error.cause))
            : Effect.fail(
                new Conflict({
                  code: "CONCURRENT_UPDATE",
                  message: "Too many concurrent changes to this webhook; retry the request.",
                }),
              ),
      ),
    ),
  );
