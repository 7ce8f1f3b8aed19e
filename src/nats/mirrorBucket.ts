import type { KV } from "@nats-io/kv";
import { Effect, type Scope } from "effect";
import { type BucketValue, type FollowValuesOptions, followValues } from "./followValues.js";

export type { BucketValue } from "./followValues.js";

/** A bucket's keys as a live in-memory map, kept current by a watch. */
export interface BucketMirror<A> {
  /** The live value under `key` (without the filter's prefix), or `undefined` when absent or deleted. */
  readonly get: (key: string) => A | undefined;
  /** Every live value. */
  readonly values: () => ReadonlyArray<A>;
  /** Every live value with its key and store time. */
  readonly entries: () => ReadonlyArray<BucketValue<A>>;
  /**
   * Completes once the values the bucket held when the mirror started are in the map (at once when
   * there were none, also when the bucket held only deletions); completes at once from then on.
   */
  readonly ready: Effect.Effect<void>;
}

/** What to mirror: the keys (`>` or `<prefix>.>`) and the schema of their values. */
export type MirrorOptions<A> = FollowValuesOptions<A>;

/**
 * Mirrors the bucket's keys matching `options.key` into a map for the life of the scope (see
 * followValues for decoding and readiness). Puts set, deletes and purges remove.
 */
export const mirrorBucket = <A>(
  kv: KV,
  options: MirrorOptions<A>,
): Effect.Effect<BucketMirror<A>, never, Scope.Scope> =>
  Effect.gen(function* () {
    const entries = new Map<string, BucketValue<A>>();
    const ready = yield* followValues(kv, options, (key, value) => {
      if (value === undefined) entries.delete(key);
      else entries.set(key, value);
    });
    return {
      get: (key: string) => entries.get(key)?.value,
      values: () => Array.from(entries.values(), (entry) => entry.value),
      entries: () => [...entries.values()],
      ready,
    };
  });
