import { Effect } from "effect";
import { encodeRecord, sealRecord, type WebhookRecord } from "../WebhookRecord.js";
import { encodeList } from "./addressLists.js";
import { addressesKey, hookKey } from "./kvKeys.js";
import { kvCall } from "./kvOps.js";
import type { StoreBuckets, Versioned } from "./StoreBuckets.js";
import { releaseSlot, reserveSlot } from "./teamIndex.js";

/**
 * Stores a new webhook: reserve its slot in the team's list (enforcing the
 * cap), write its address list, then the record last, so a record that can be
 * read always has its addresses. If a step fails the slot
 * and whatever was written are removed again. Answers the record as stored
 * (its secrets sealed).
 */
export const createWebhook = (
  buckets: StoreBuckets,
  record: WebhookRecord,
  addresses: ReadonlyArray<string>,
  maxPerTeam: number,
) =>
  Effect.gen(function* () {
    yield* reserveSlot(buckets.webhooks, record.team_id, record.id, maxPerTeam);
    const undo = Effect.all(
      [
        releaseSlot(buckets.webhooks, record.team_id, record.id),
        kvCall(() => buckets.webhooks.delete(addressesKey(record.id))),
      ],
      { discard: true },
    ).pipe(Effect.ignore);
    return yield* Effect.gen(function* () {
      yield* kvCall(() => buckets.webhooks.create(addressesKey(record.id), encodeList(addresses)));
      const stored = sealRecord(record, buckets.sealer);
      const revision = yield* kvCall(() =>
        buckets.webhooks.create(hookKey(record.id), encodeRecord(stored, buckets.sealer)),
      );
      return { value: stored, revision } satisfies Versioned<WebhookRecord>;
    }).pipe(Effect.onError(() => undo));
  });
