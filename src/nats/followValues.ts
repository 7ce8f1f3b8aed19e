import type { KV, KvEntry } from "@nats-io/kv";
import { Effect, Either, Schema, type Scope } from "effect";
import { type FollowOptions, followBucket } from "./followBucket.js";

/** One live value, with its key (the filter's prefix removed) and when the broker stored it. */
export interface BucketValue<A> {
  readonly key: string;
  readonly value: A;
  readonly created: Date;
  /** The KV revision (stream sequence) of the value. */
  readonly revision: number;
}

/** Which keys to follow and how to read their values. */
export interface FollowValuesOptions<A> extends Pick<FollowOptions, "key" | "stallCheckMs" | "pullBatch"> {
  /** The stored text to a value; a value that does not decode counts as absent (and is logged). */
  readonly decode: Schema.Schema<A, string>;
}

/**
 * Called for each change in bucket order: the key (prefix removed) and its new value, or
 * `undefined` when the key was deleted or purged or its value does not decode.
 */
export type OnChange<A> = (key: string, value: BucketValue<A> | undefined) => void;

/**
 * followBucket (replaying each key's last entry at every watch), each entry decoded with
 * `options.decode` and passed to `onChange` under its key without the filter's prefix. Returns an
 * effect that completes once the values held at the start have been passed on.
 */
export const followValues = <A>(
  kv: KV,
  options: FollowValuesOptions<A>,
  onChange: OnChange<A>,
): Effect.Effect<Effect.Effect<void>, never, Scope.Scope> => {
  const prefix = options.key.slice(0, -1);
  const decode = Schema.decodeUnknownEither(options.decode);
  const onEntry = (entry: KvEntry) => {
    const key = entry.key.slice(prefix.length);
    if (entry.operation !== "PUT") return onChange(key, undefined);
    const decoded = decode(entry.string());
    if (Either.isRight(decoded))
      return onChange(key, { key, value: decoded.right, created: entry.created, revision: entry.revision });
    onChange(key, undefined);
    return Effect.logWarning(
      `ignoring an undecodable value of ${entry.bucket}/${entry.key}: ${decoded.left.message}`,
    );
  };
  return followBucket(
    kv,
    {
      key: options.key,
      ...(options.stallCheckMs === undefined ? {} : { stallCheckMs: options.stallCheckMs }),
      ...(options.pullBatch === undefined ? {} : { pullBatch: options.pullBatch }),
    },
    onEntry,
  );
};
