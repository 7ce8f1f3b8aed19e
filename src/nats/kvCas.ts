import type { KV, KvEntry } from "@nats-io/kv";
import { Data, Effect, Either } from "effect";
import { isRevisionConflict } from "./revisionConflict.js";

/** What one round of a revision-checked change decided, from the entry it read. */
export type CasDecision<R> =
  | { readonly kind: "write"; readonly value: string; readonly result: R }
  | { readonly kind: "delete"; readonly result: R }
  | { readonly kind: "keep"; readonly result: R };

/** The bucket could not be read or written (a broker restarting, a timeout): worth trying later. */
export class KvStoreFailed extends Data.TaggedError("KvStoreFailed")<{
  readonly key: string;
  readonly cause: unknown;
}> {
  override get message(): string {
    return `KV ${this.key}: ${this.cause instanceof Error ? this.cause.message : String(this.cause)}`;
  }
}

/** Other writers won every round: the change was not made. */
export class KvContended extends Data.TaggedError("KvContended")<{
  readonly key: string;
  readonly attempts: number;
}> {
  override get message(): string {
    return `KV ${this.key} kept changing under ${this.attempts} attempts`;
  }
}

export interface KvCasOptions {
  /** Rounds before giving up with KvContended. */
  readonly maxAttempts: number;
  /** Pause after the lost round `attempt` (0-based), so racing writers spread out; none when absent. */
  readonly backoffMs?: (attempt: number) => number;
}

const storeCall = <A>(key: string, f: () => Promise<A>) =>
  Effect.tryPromise({ try: f, catch: (cause) => new KvStoreFailed({ key, cause }) });

/** The live entry of a key, or `null` when absent or deleted. */
export const liveEntry = (kv: KV, key: string): Effect.Effect<KvEntry | null, KvStoreFailed> =>
  storeCall(key, () => kv.get(key)).pipe(
    Effect.map((entry) => (entry !== null && entry.operation === "PUT" ? entry : null)),
  );

/** Makes the decided change against the revision read; answers the revision written (or read, on keep). */
const attempt = <R>(kv: KV, key: string, entry: KvEntry | null, decision: CasDecision<R>) =>
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

/**
 * One revision-checked change of a KV key: reads `key`, lets `decide` compute the change from the
 * live entry (`null` when absent), and makes it only if nobody wrote in between (create when
 * absent, update or delete at the read revision). A round lost to another writer (JetStream's
 * wrong-last-sequence refusal) reads again and decides again; `decide` is pure, so a retry cannot
 * apply a change twice. Answers the decision's result and the revision written (or read, on keep).
 */
export const kvCas = <R, E>(
  kv: KV,
  key: string,
  decide: (entry: KvEntry | null) => Either.Either<CasDecision<R>, E>,
  options: KvCasOptions,
): Effect.Effect<
  { readonly result: R; readonly revision: number | undefined },
  E | KvStoreFailed | KvContended
> =>
  Effect.gen(function* () {
    for (let round = 0; round < options.maxAttempts; round++) {
      const entry = yield* liveEntry(kv, key);
      const decision = decide(entry);
      if (Either.isLeft(decision)) return yield* Effect.fail(decision.left);
      const outcome = yield* Effect.either(attempt(kv, key, entry, decision.right));
      if (Either.isRight(outcome)) return { result: decision.right.result, revision: outcome.right };
      if (!isRevisionConflict(outcome.left)) return yield* new KvStoreFailed({ key, cause: outcome.left });
      const pause = options.backoffMs?.(round) ?? 0;
      if (pause > 0) yield* Effect.sleep(pause);
    }
    return yield* new KvContended({ key, attempts: options.maxAttempts });
  });
