import type { JetStreamManager } from "@nats-io/jetstream";
import { bucketStream } from "../../nats/JetStreamSetup.js";

const STREAM = bucketStream("webhook_outbox");
const SUBJECT_PREFIX = "$KV.webhook_outbox.";

/** Where the outbox stream ends, and what follows a sequence in a partition, as the stream's leader answers. */
export interface PartitionTail {
  /** The stream's last sequence. */
  readonly lastSeq: () => Promise<number>;
  /** The sequence of the first message after `seq` whose key matches `filter`, or undefined when there is none. */
  readonly firstAfter: (filter: string, seq: number) => Promise<number | undefined>;
}

export const streamPartitionTail = (jsm: JetStreamManager): PartitionTail => ({
  lastSeq: async () => (await jsm.streams.info(STREAM)).state.last_seq,
  firstAfter: async (filter, seq) => {
    // STREAM.MSG.GET takes `next_by_subj` with a sequence (nats-server 2.9+), though the client's type omits it.
    const query = { seq: seq + 1, next_by_subj: `${SUBJECT_PREFIX}${filter}` } as unknown as { seq: number };
    return (await jsm.streams.getMessage(STREAM, query))?.seq;
  },
});
