import { JetStreamApiCodes, JetStreamApiError } from "@nats-io/jetstream";

/**
 * Whether a revision-checked KV write lost to another writer: a `create` of a key that has a
 * value, or an `update` naming a revision the key has moved past. The KV client rethrows
 * JetStream's own error for both (code 10071, "wrong last sequence"), never a "key exists" text;
 * the code is what is judged. A refusal that arrives only as text (the outbox's writes through a
 * request mux answer JetStream's description) is judged by that description.
 */
export const isRevisionConflict = (error: unknown): boolean =>
  error instanceof JetStreamApiError
    ? error.code === JetStreamApiCodes.StreamWrongLastSequence ||
      error.code === JetStreamApiCodes.StreamWrongLastSequenceUnknown
    : error instanceof Error && /wrong last sequence/i.test(error.message);
