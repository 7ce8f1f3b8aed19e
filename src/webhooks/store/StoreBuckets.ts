import type { KV } from "@nats-io/kv";

/** The two KV buckets webhook state lives in (layout in kvKeys.ts). */
export interface StoreBuckets {
  /** `webhooks`: records, address lists, team lists. */
  readonly webhooks: KV;
  /** `webhook_addresses`: the address -> webhook index. */
  readonly index: KV;
}

/** A record as read or written, with its KV revision (its version). */
export interface Versioned<A> {
  readonly value: A;
  readonly revision: number;
}
