import type { KV } from "@nats-io/kv";
import { Effect, Either, Option, Schema } from "effect";
import type { Conflict, Unavailable } from "../../contracts/ApiError.js";
import { indexKey } from "./kvKeys.js";
import { casModify, kvCall } from "./kvOps.js";

/** One entry of the address index: membership as of revision `rev` of the webhook's address list. */
export const IndexEntry = Schema.Struct({ rev: Schema.Int, member: Schema.Boolean });
export type IndexEntry = typeof IndexEntry.Type;

const decodeEntry = Schema.decodeUnknownOption(Schema.parseJson(IndexEntry));

/** Index writes in flight per request: enough to hide round trips, few enough not to flood NATS. */
const CONCURRENCY = 32;

/** What an address-list change did, at the list revision that committed it. */
export interface AddressChange {
  readonly webhookId: string;
  /** Revision of `addresses.<id>` that committed this change. */
  readonly revision: number;
  readonly added: ReadonlyArray<string>;
  readonly removed: ReadonlyArray<string>;
  /** The webhook id is new, so no older entry can exist: write without reading first. */
  readonly fresh?: boolean;
}

const setMember = (index: KV, webhookId: string, address: string, revision: number, member: boolean) => {
  const value = JSON.stringify({ rev: revision, member } satisfies IndexEntry);
  return casModify(index, indexKey(address, webhookId), (entry) => {
    const current = entry === null ? undefined : decodeEntry(entry.string());
    // A newer list revision already decided this address: ours is stale, leave it.
    if (current !== undefined && Option.isSome(current) && current.value.rev >= revision) {
      return Either.right({ kind: "keep" as const, result: undefined });
    }
    return Either.right({ kind: "write" as const, value, result: undefined });
  });
};

/**
 * Brings the index in line with one committed address-list change. Entries
 * only move forward in list revision (see kvKeys.ts), so concurrent changes to
 * the same webhook converge on its latest list whatever order they land in.
 */
export const applyToIndex = (index: KV, change: AddressChange) =>
  Effect.forEach(
    [
      ...change.added.map((address) => [address, true] as const),
      ...change.removed.map((address) => [address, false] as const),
    ],
    ([address, member]): Effect.Effect<unknown, Unavailable | Conflict> =>
      change.fresh === true
        ? kvCall(() =>
            index.put(
              indexKey(address, change.webhookId),
              JSON.stringify({ rev: change.revision, member } satisfies IndexEntry),
            ),
          )
        : setMember(index, change.webhookId, address, change.revision, member),
    { concurrency: CONCURRENCY, discard: true },
  );

/** The webhook ids currently indexed for an address (tombstones excluded). */
export const webhooksForAddress = (index: KV, address: string) =>
  kvCall(async () => {
    const prefix = `${address.toLowerCase()}.`;
    const keys: Array<string> = [];
    for await (const key of await index.keys(`${prefix}*`)) keys.push(key);
    const entries = await Promise.all(keys.map((key) => index.get(key)));
    return entries.flatMap((entry) => {
      if (entry === null || entry.operation !== "PUT") return [];
      const decoded = decodeEntry(entry.string());
      return Option.isSome(decoded) && decoded.value.member ? [entry.key.slice(prefix.length)] : [];
    });
  });
