import { Effect, Option } from "effect";
import { pageOf } from "../paging.js";
import { decodeRecord, type WebhookRecord } from "../WebhookRecord.js";
import { hookKey } from "./kvKeys.js";
import { getLive } from "./kvOps.js";
import type { StoreBuckets } from "./StoreBuckets.js";
import { teamWebhookIds } from "./teamIndex.js";

/**
 * One page of the team's webhooks in creation order, after the webhook id
 * `after`. An id whose record is gone (deleted a moment ago) is skipped, so a
 * page may be shorter than `limit`; `next` still says whether more follow.
 */
export const listWebhooks = (
  buckets: StoreBuckets,
  teamId: string,
  after: string | undefined,
  limit: number,
) =>
  Effect.gen(function* () {
    const ids = yield* teamWebhookIds(buckets.webhooks, teamId);
    const page = pageOf(ids, (id) => id, after, limit);
    const entries = yield* Effect.forEach(page.items, (id) => getLive(buckets.webhooks, hookKey(id)), {
      concurrency: 16,
    });
    const records = entries.flatMap((entry) => {
      if (entry === null) return [];
      const record = Option.liftThrowable(decodeRecord)(entry.string());
      return Option.isSome(record) && record.value.team_id === teamId ? [record.value] : [];
    });
    return { records: records as ReadonlyArray<WebhookRecord>, next: page.next };
  });
