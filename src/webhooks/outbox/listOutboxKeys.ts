import type { JetStreamManager } from "@nats-io/jetstream";
import { bucketStream } from "../../nats/JetStreamSetup.js";

const SUBJECT_PREFIX = "$KV.webhook_outbox.";

/**
 * The outbox keys matching `filter`, from the stream's subject list (one API
 * call, no consumer). `kv.keys()` reads them through a consumer that can wait
 * for ever when a key it counted is rewritten meanwhile (history 1 drops the old
 * message). Deleted keys are listed too; reading them answers nothing.
 */
export const listOutboxKeys =
  (jsm: JetStreamManager) =>
  async (filter: string): Promise<Array<string>> => {
    const info = await jsm.streams.info(bucketStream("webhook_outbox"), {
      subjects_filter: `${SUBJECT_PREFIX}${filter}`,
    });
    return Object.keys(info.state.subjects ?? {}).map((subject) => subject.slice(SUBJECT_PREFIX.length));
  };
