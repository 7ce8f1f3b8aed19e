import { Effect } from "effect";
import { InvalidRequest } from "../../contracts/ApiError.js";
import { leaderReads } from "../../nats/leaderReads.js";
import { encodeRecord, sealRecord, type WebhookRecord } from "../WebhookRecord.js";
import { encodeList } from "./addressLists.js";
import { addressesKey, hookKey } from "./kvKeys.js";
import { getLive, kvCall } from "./kvOps.js";
import { removeRemains } from "./removeWebhook.js";
import type { StoreBuckets, Versioned } from "./StoreBuckets.js";
import { releaseSlot, reserveSlot, teamWebhookIds } from "./teamIndex.js";

/**
 * How long an id may be in its team's list without its record before it is taken for a create
 * cut short (the process killed between the slot and the record, where its undo never runs). A
 * create in progress takes well under a second; its id names when it began (a UUIDv7).
 */
export const CUT_SHORT_AFTER_MS = 60_000;

/** When a webhook id was made: a UUIDv7's first 48 bits are its milliseconds. */
const madeAt = (id: string): number => Number.parseInt(id.replaceAll("-", "").slice(0, 12), 16);

/**
 * Frees the slots (and address lists) of the team's creates cut short: ids in its list older than
 * CUT_SHORT_AFTER_MS whose record is not there. Answers how many.
 */
const reclaimCutShort = (buckets: StoreBuckets, teamId: string, now: number) =>
  Effect.gen(function* () {
    const old = (yield* teamWebhookIds(buckets.webhooks, teamId)).filter(
      (id) => now - madeAt(id) >= CUT_SHORT_AFTER_MS,
    );
    // From the leader: a replica that has not yet applied a record would make a live webhook's
    // address list and slot look like a cut-short create's.
    const leader = leaderReads(buckets.webhooks);
    const cutShort = (yield* Effect.forEach(
      old,
      (id) => Effect.map(getLive(leader, hookKey(id)), (entry) => (entry === null ? [id] : [])),
      { concurrency: 16 },
    )).flat();
    for (const id of cutShort) yield* removeRemains(buckets, teamId, id);
    return cutShort.length;
  });

/**
 * A slot in the team's list; a team at its cap first gets back the slots of its creates cut short,
 * which would otherwise hold it under the cap for good.
 */
const reserve = (buckets: StoreBuckets, record: WebhookRecord, maxPerTeam: number) =>
  reserveSlot(buckets.webhooks, record.team_id, record.id, maxPerTeam).pipe(
    Effect.catchIf(
      (error) => error instanceof InvalidRequest && error.code === "WEBHOOK_LIMIT_REACHED",
      (atCap) =>
        Effect.gen(function* () {
          if ((yield* reclaimCutShort(buckets, record.team_id, Date.now())) === 0)
            return yield* Effect.fail(atCap);
          yield* reserveSlot(buckets.webhooks, record.team_id, record.id, maxPerTeam);
        }),
    ),
  );

/**
 * Stores a new webhook: reserve its slot in the team's list (enforcing the
 * cap), write its address list, then the record last, so a record that can be
 * read always has its addresses. If a step fails the slot
 * and whatever was written are removed again (a process killed meanwhile leaves
 * them to reclaimCutShort). Answers the record as stored
 * (its secrets sealed).
 */
export const createWebhook = (
  buckets: StoreBuckets,
  record: WebhookRecord,
  addresses: ReadonlyArray<string>,
  maxPerTeam: number,
) =>
  Effect.gen(function* () {
    yield* reserve(buckets, record, maxPerTeam);
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
