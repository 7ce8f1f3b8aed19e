import type { KV, KvEntry } from "@nats-io/kv";
import { Effect, Either } from "effect";
import { Conflict, Unavailable } from "../../contracts/ApiError.js";
import { type KeyedTurns, makeKeyedTurns } from "../../lib/keyedTurns.js";
import { isRevisionConflict } from "../../nats/revisionConflict.js";

/** Runs one KV call; a failure is a 503 (the store cannot answer now). */
export const kvCall = <A>(f: () => Promise<A>): Effect.Effect<A, Unavailable> =>
  Effect.tryPromise({
    try: f,
    catch: (cause) =>
      new Unavailable({
        code: "STORE_UNAVAILABLE",
        message: `The webhook store cannot answer now; retry shortly (${cause instanceof Error ? cause.message : String(cause)}).`,
      }),
  });

/** The live entry of a key, or `null` when absent or deleted. */
export const getLive = (kv: KV, key: string) =>
  kvCall(() => kv.get(key)).pipe(
    Effect.map((entry) => (entry !== null && entry.operation === "PUT" ? entry : null)),
  );

/** What one attempt of a revision-checked change decided. */
export type CasDecision<R> =
  | { readonly kind: "write"; readonly value: string; readonly result: R }
  | { readonly kind: "delete"; readonly result: R }
  | { readonly kind: "keep"; readonly result: R };

/**
 * Attempts before a change gives up as 409: one winner per round means a
 * hundred concurrent writers finish well within this with the backoff below.
 */
const MAX_ATTEMPTS = 200;

const backoff = (attempt: number) => Effect.sleep(Math.floor(Math.random() * Math.min(50, 2 + attempt * 2)));

const attemptOnce = <R>(kv: KV, key: string, entry: KvEntry | null, decision: CasDecision<R>) =>
  Effect.tryPromise({
    try: async (): Promise<number | undefined> => {
      if (decision.kind === "keep") return entry?.revision;
      if (decision.kind === "delete") {
        if (entry === null) return undefined;
        await kv.delete(key, { previousSeq: entry.revision });
        return undefined;
      }
      return entry === null ? kv.create(key, decision.value) : kv.update(key, decision.value, entry.revision);
    },
    catch: (cause) => cause,
  });

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
 * Reads `key`, lets `decide` compute the change from the live entry (`null`
 * when absent), and writes it only if nobody wrote in between (create when
 * absent, update or delete at the read revision); on a lost race it reads
 * again and decides again. `decide` is pure, so a retry cannot double-apply.
 * Returns the decision's result and the revision written (or read, on keep).
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
  turnsOf(kv)(key, casRounds(kv, key, decide));

const casRounds = <R, E>(
  kv: KV,
  key: string,
  decide: (entry: KvEntry | null) => Either.Either<CasDecision<R>, E>,
): Effect.Effect<{ readonly result: R; readonly revision: number | undefined }, E | Unavailable | Conflict> =>
  Effect.gen(function* () {
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const entry = yield* getLive(kv, key);
      const decision = decide(entry);
      if (Either.isLeft(decision)) return yield* Effect.fail(decision.left);
      const outcome = yield* Effect.either(attemptOnce(kv, key, entry, decision.right));
      if (Either.isRight(outcome)) return { result: decision.right.result, revision: outcome.right };
      if (!isRevisionConflict(outcome.left)) {
        return yield* kvCall(() => Promise.reject(outcome.left));
      }
      yield* backoff(attempt);
    }
    return yield* new Conflict({
      code: "CONCURRENT_UPDATE",
      message: "Too many concurrent changes to this webhook; retry the request.",
    });
  });
