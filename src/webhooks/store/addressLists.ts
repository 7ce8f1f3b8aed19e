import type { KvEntry } from "@nats-io/kv";
import { Effect, Either, Option, Schema } from "effect";
import type { InvalidRequest, NotFound } from "../../contracts/ApiError.js";
import { getOwned, notFound } from "./hookRecords.js";
import { addressesKey } from "./kvKeys.js";
import { type CasDecision, casModify, getLive } from "./kvOps.js";
import type { StoreBuckets } from "./StoreBuckets.js";

const AddressesJson = Schema.parseJson(Schema.Struct({ addresses: Schema.Array(Schema.String) }));
const decodeList = Schema.decodeUnknownOption(AddressesJson);

/** The stored list; empty means absent or being deleted (live lists are never empty). */
export const listOf = (entry: KvEntry | null): ReadonlyArray<string> =>
  entry === null
    ? []
    : Option.match(decodeList(entry.string()), { onNone: () => [], onSome: (v) => v.addresses });

export const encodeList = (addresses: ReadonlyArray<string>) => JSON.stringify({ addresses });

/** A team's webhook's addresses (404 when the webhook is not the team's). */
export const readAddresses = (buckets: StoreBuckets, teamId: string, id: string) =>
  Effect.gen(function* () {
    yield* getOwned(buckets, teamId, id);
    const list = listOf(yield* getLive(buckets.webhooks, addressesKey(id)));
    return list.length === 0 ? yield* Effect.fail(notFound(id)) : list;
  });

const sameList = (a: ReadonlyArray<string>, b: ReadonlyArray<string>) =>
  a.length === b.length && a.every((x, i) => x === b[i]);

/**
 * Replaces a team's webhook's list with `compute(current)` (sorted, deduplicated) under a
 * revision check. The one write is the whole change: the notifier applies the new list as the
 * difference from the one it holds, so 100,000 addresses added or removed cost one KV write.
 */
export const changeAddresses = (
  buckets: StoreBuckets,
  teamId: string,
  id: string,
  compute: (current: ReadonlyArray<string>) => Either.Either<ReadonlyArray<string>, InvalidRequest>,
) =>
  Effect.gen(function* () {
    yield* getOwned(buckets, teamId, id);
    yield* casModify<void, NotFound | InvalidRequest>(buckets.webhooks, addressesKey(id), (entry) => {
      const current = listOf(entry);
      if (current.length === 0) return Either.left(notFound(id));
      return Either.map(
        compute(current),
        (next): CasDecision<void> =>
          sameList(current, next)
            ? { kind: "keep", result: undefined }
            : { kind: "write", value: encodeList(next), result: undefined },
      );
    });
  });
