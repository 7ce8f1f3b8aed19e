import type { KV } from "@nats-io/kv";
import { headers } from "@nats-io/transport-node";
import type { RequestMux } from "../../nats/RequestMux.js";

/**
 * The outbox bucket's writes made per delivery: the notifier's create of its
 * key, its owner's revision-checked record of an attempt, and the webhook's
 * stats write that follows (about one per delivery when a webhook gets less
 * than one delivery per stats interval). They answer the key's new revision
 * and fail with JetStream's "wrong last sequence" when the key exists
 * (create) or moved on (update).
 */
export interface OutboxWrites {
  readonly create: (key: string, bytes: Uint8Array) => Promise<number>;
  readonly update: (key: string, bytes: Uint8Array, revision: number) => Promise<number>;
}

/** Through the KV client (what the other writes of the bucket use). */
export const kvOutboxWrites = (kv: KV): OutboxWrites => ({
  create: (key, bytes) => kv.create(key, bytes),
  update: (key, bytes, revision) => kv.update(key, bytes, revision),
});

/** How long a write waits for JetStream's answer, ms (the KV client's default). */
const WRITE_TIMEOUT_MS = 5_000;

/** The header that makes a publish to a KV key revision-checked (0: the key must have no value). */
const EXPECTED_REVISION = "Nats-Expected-Last-Subject-Sequence";

/** JetStream refused a write (its answer's description, e.g. "wrong last sequence: 12"). */
export class OutboxWriteRefused extends Error {
  constructor(
    readonly code: number | undefined,
    description: string,
  ) {
    super(description);
  }
}

interface PubAck {
  readonly seq?: number;
  readonly error?: { readonly err_code?: number; readonly description?: string };
}

const decoder = new TextDecoder();

/**
 * The same writes as the KV client makes them (a publish to `$KV.<bucket>.<key>`
 * with the expected revision in a header, answered by JetStream's publish
 * acknowledgement), sent through the process's RequestMux: the NATS client's
 * request builds two Error objects with stack traces per call (its async trace
 * and a "cancelled" one once answered), which the profile of a delivery run
 * showed at 3 to 8 % of the service's CPU, and the mux sends the writes asked
 * for in one turn of the event loop in one socket write.
 *
 * A create refused because the key has a value is tried once more through the
 * KV client, which also creates over a delete or purge marker; that happens
 * only for a chain event planned again, so its cost does not matter.
 */
export const muxOutboxWrites = (kv: KV, mux: RequestMux, bucket: string): OutboxWrites => {
  const prefix = `$KV.${bucket}.`;
  const put = async (key: string, bytes: Uint8Array, revision: number): Promise<number> => {
    const h = headers();
    h.set(EXPECTED_REVISION, String(revision));
    const reply = await mux.request(prefix + key, bytes, h, WRITE_TIMEOUT_MS);
    const ack = JSON.parse(decoder.decode(reply.data)) as PubAck;
    if (ack.error !== undefined)
      throw new OutboxWriteRefused(ack.error.err_code, ack.error.description ?? "write refused");
    if (typeof ack.seq !== "number") throw new Error(`invalid JetStream answer to a write of ${key}`);
    return ack.seq;
  };
  return {
    create: (key, bytes) =>
      put(key, bytes, 0).catch((error: unknown) =>
        error instanceof OutboxWriteRefused && /wrong last sequence/i.test(error.message)
          ? kv.create(key, bytes)
          : Promise.reject(error),
      ),
    update: put,
  };
};
