import type { AttemptRecord, DeliveryCounters, QueuedDelivery } from "./QueuedDelivery.js";

/** A delivery still owed: waiting or retrying (`queued`), or given up on until an operator redelivers it (`dead`). */
export type OwedDelivery = QueuedDelivery & { readonly state: "queued" | "dead" };

/**
 * A delivered one, kept small for a while so that a chain event planned again
 * (its notifier died before acknowledging it) cannot queue it a second time.
 */
export interface DoneDelivery {
  readonly state: "done";
  readonly id: string;
  readonly webhook_id: string;
  readonly order: string;
  /** When it was delivered (ms); the marker is swept DONE_KEPT_MS later. */
  readonly done_at: number;
}

/** The value of a `d.<pp>.<webhook>.<order>` key of the replicated outbox. */
export type StoredDelivery = OwedDelivery | DoneDelivery;

/** The value of `st.<webhook>`: totals and the last RECENT_ATTEMPTS attempts, oldest first. */
export interface DeliveryStats {
  readonly counters: DeliveryCounters;
  readonly recent: ReadonlyArray<AttemptRecord>;
}

/**
 * How long a done marker outlives its delivery. A chain event is planned again
 * only when its notifier died holding it, and JetStream offers it again after
 * the notifier's ack wait (10 s); ten minutes leave room for a slow cluster.
 */
export const DONE_KEPT_MS = 10 * 60_000;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export const encodeValue = (value: StoredDelivery | DeliveryStats): Uint8Array =>
  encoder.encode(JSON.stringify(value));

/** Values are written only by this service; an unreadable one is treated as absent. */
export const decodeValue = <A>(bytes: Uint8Array): A | undefined => {
  try {
    return JSON.parse(decoder.decode(bytes)) as A;
  } catch {
    return undefined;
  }
};

/** A stored change's value: decoded for a put, absent for a delete or purge marker (or unreadable). */
export const storedValue = (operation: string, bytes: Uint8Array): StoredDelivery | undefined =>
  operation === "PUT" ? decodeValue<StoredDelivery>(bytes) : undefined;
