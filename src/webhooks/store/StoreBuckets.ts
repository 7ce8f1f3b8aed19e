import type { KV } from "@nats-io/kv";
import type { SecretSealer } from "../secrets/secretSealing.js";

/** The KV bucket webhook state lives in (layout in kvKeys.ts), and how secrets are sealed in it. */
export interface StoreBuckets {
  /** `webhooks`: records, address lists, team lists. */
  readonly webhooks: KV;
  /** Seals signing secrets before a record is written, and opens them to sign deliveries. */
  readonly sealer: SecretSealer;
}

/** A record as read or written, with its KV revision (its version). */
export interface Versioned<A> {
  readonly value: A;
  readonly revision: number;
}
