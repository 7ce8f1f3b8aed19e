import type { Activity } from "../../decoding/index.js";
import type { WebhookRecord } from "../WebhookRecord.js";
import { matchesActivity } from "./filters.js";

/**
 * One element of an `activities` delivery: the classified activity
 * (docs/activities.md, snake_case, with `tx_from`, `tx_to`, `tx_value`, and for
 * calls `call_type` and `data`), plus `event_id` (its stable `activity_id`) and `removed`.
 */
export type ActivityEvent = Activity & { readonly event_id: string; readonly removed: boolean };

/** The block's activities of `record`'s addresses that pass its filters, in block order. */
export const activityEvents = (
  activities: ReadonlyArray<Activity>,
  record: WebhookRecord,
  addresses: ReadonlySet<string>,
): ReadonlyArray<ActivityEvent> =>
  activities
    .filter((activity) => addresses.has(activity.wallet_address) && matchesActivity(record, activity))
    .map((activity) => ({ ...activity, event_id: activity.activity_id, removed: false }));
