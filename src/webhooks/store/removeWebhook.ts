import { Effect, Either } from "effect";
import { Unavailable } from "../../contracts/ApiError.js";
import { leaderReads } from "../../nats/leaderReads.js";
import { decodeRecord } from "../WebhookRecord.js";
import { encodeList, listOf } from "./addressLists.js";
import { notFound } from "./hookRecords.js";
import { addressesKey, hookKey } from "./kvKeys.js";
import { casModify, getLive, kvCall } from "./kvOps.js";
import type { StoreBuckets } from "./StoreBuckets.js";
import { releaseSlot, teamWebhookIds } from "./teamIndex.js";

const teamOf = (text: string) => Either.try(() => decodeRecord(text).team_id);

/**
 * What is left of a webhook once its record is gone: its address list (the
 * notifier drops the webhook's addresses when it sees the list emptied or
 * deleted), then its slot in the team's list. Each step is idempotent. Answers
 * the addresses the list still held (none once an earlier try emptied it), so a
 * delete resumed after its record went can still withdraw them from discovery.
 */
export const removeRemains = (buckets: StoreBuckets, teamId: string, id: string) =>
  Effect.gen(function* () {
    const list = yield* getLive(buckets.webhooks, addressesKey(id));
    // An empty list marks "being deleted": a racing address change then answers 404 instead of re-adding.
    if (list !== null) {
      yield* casModify(buckets.webhooks, addressesKey(id), () =>
        Either.right({ kind: "write" as const, value: encodeList([]), result: undefined }),
      );
      yield* kvCall(() => buckets.webhooks.delete(addressesKey(id)));
    }
    yield* releaseSlot(buckets.webhooks, teamId, id);
    return listOf(list);
  });

/**
 * Deletes a team's webhook permanently: the record first (from then on every
 * route answers 404), then what is left of it (removeRemains). A delete cut
 * short after the record went (the store failing, the process killed) left the
 * id in the team's list: asked again, it finishes, rather than answer 404 and
 * leave the team a slot short and every API process its address list for good.
 * Answers the addresses its list held when it was removed.
 */
export const removeWebhook = (buckets: StoreBuckets, teamId: string, id: string) =>
  Effect.gen(function* () {
    const { result: removed } = yield* casModify(buckets.webhooks, hookKey(id), (entry) => {
      if (entry === null) return Either.right({ kind: "keep" as const, result: false });
      const owner = Either.getOrUndefined(teamOf(entry.string()));
      return owner === teamId
        ? Either.right({ kind: "delete" as const, result: true })
        : Either.left(notFound(id));
    });
    // No record: a delete cut short after it is finished, where the team's list still names the id.
    // Both read from the leader, as a replica may not have applied a record just created: a
    // live webhook must never lose its addresses and slot to a stale read.
    if (!removed) {
      const leader = leaderReads(buckets.webhooks);
      const stored = yield* getLive(leader, hookKey(id));
      if (stored !== null && Either.getOrUndefined(teamOf(stored.string())) !== teamId)
        return yield* Effect.fail(notFound(id));
      if (stored !== null)
        return yield* Effect.fail(
          new Unavailable({
            code: "STORE_UNAVAILABLE",
            message: "The webhook store has not caught up with a recent change; retry the request.",
          }),
        );
      if (!(yield* teamWebhookIds(leader, teamId)).includes(id)) return yield* Effect.fail(notFound(id));
    }
    return yield* removeRemains(buckets, teamId, id);
  });
