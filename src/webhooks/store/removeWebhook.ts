import { Effect, Either } from "effect";
import { decodeRecord } from "../WebhookRecord.js";
import { encodeList } from "./addressLists.js";
import { notFound } from "./hookRecords.js";
import { addressesKey, hookKey } from "./kvKeys.js";
import { casModify, kvCall } from "./kvOps.js";
import type { StoreBuckets } from "./StoreBuckets.js";
import { releaseSlot } from "./teamIndex.js";

const teamOf = (text: string) => Either.try(() => decodeRecord(text).team_id);

/**
 * Deletes a team's webhook permanently: the record first (from then on every
 * route answers 404), then its address list (the notifier drops the webhook's
 * addresses when it sees the list emptied or deleted), then its slot in the
 * team's list.
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
    yield* casModify(buckets.webhooks, addressesKey(id), () =>
      Either.right({ kind: "write" as const, value: encodeList([]), result: undefined }),
    );
    yield* kvCall(() => buckets.webhooks.delete(addressesKey(id)));
    yield* releaseSlot(buckets.webhooks, teamId, id);
  });
