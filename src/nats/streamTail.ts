import type { JetStreamManager } from "@nats-io/jetstream";

/** Where a stream ends, and what follows a sequence among some of its subjects, as the stream's leader answers. */
export interface StreamTail {
  /** The stream's last sequence. */
  readonly lastSeq: () => Promise<number>;
  /** The sequence of the first message after `seq` whose key matches `filter`, or undefined when there is none. */
  readonly firstAfter: (filter: string, seq: number) => Promise<number | undefined>;
}

/**
 * The tail of `stream`, whose subjects are `subjectPrefix` followed by a key (a KV bucket's stream:
 * `KV_<bucket>` and `$KV.<bucket>.`). The caller's user needs STREAM.INFO and STREAM.MSG.GET on it.
 */
export const streamTail = (jsm: JetStreamManager, stream: string, subjectPrefix: string): StreamTail => ({
  lastSeq: async () => (await jsm.streams.info(stream)).state.last_seq,
  firstAfter: async (filter, seq) => {
    // STREAM.MSG.GET takes `next_by_subj` with a sequence (nats-server 2.9+), though the client's type omits it.
    const query = { seq: seq + 1, next_by_subj: `${subjectPrefix}${filter}` } as unknown as { seq: number };
    return (await jsm.streams.getMessage(stream, query))?.seq;
  },
});
