import { Effect, Either } from "effect";
import { decodeRecord } from "../WebhookRecord.js";
import { applyToIndex } from "./addressIndex.js";
import { encodeList, listOf } from "./addressLists.js";
import { notFound } from "./hookRecords.js";
import { addressesKey, hookKey } from "./kvKeys.js";
import { casModify, kvCall } from "./kvOps.js";
import type { StoreBuckets } from "./StoreBuckets.js";
import { releaseSlot } from "./teamIndex.js";

const teamOf = (text: string) => Either.try(() => decodeRecord(text).team_id);

/**
 * Deletes a team's webhook permanently: the record first (from then on every
 * route answers 404), then its address list, tombstoning its index entries at
 * the list's final revision, then its slot in the team's list.
 */
export const removeWebhook = (buckets: StoreBuckets, teamId: string, id: string) =>
  Effect.gen(function* () {
    yield* casModify(buckets.webhooks, hookKey(id), (entry) => {
      const owner = entry === null ? undefined : Either.getOrUndefined(teamOf(entry.string()));
      return owner === teamId
        ? Either.right({ kind: "delete" as const, result: undefined })
        : Either.left(notFound(id));
    });
    // An empty list marks "being deleted": a racing address change then answers 404 instead of re-adding.
    const { result: removed, revision } = yield* casModify(buckets.webhooks, addressesKey(id), (entry) =>
      Either.right({ kind: "write" as const, value: encodeList([]), result: listOf(entry) }),
    );
    if (revision !== undefined && removed.length > 0) {
      yield* applyToIndex(buckets.index, { webhookId: id, revision, added: [], removed });
    }
    yield* kvCall(() => buckets.webhooks.delete(addressesKey(id)));
    yield* releaseSlot(buckets.webhooks, teamId, id);
  });
