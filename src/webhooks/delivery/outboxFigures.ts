import type { OutboxFigures } from "../../metrics/Metrics.js";
import type { Db } from "../../storage/Level.js";
import { end, PREFIX } from "./outboxKeys.js";
import type { QueuedDelivery } from "./QueuedDelivery.js";

const QUEUE = `${PREFIX}q!`;
const DEAD = `${PREFIX}dl!`;

const countKeys = async (db: Db, prefix: string) => {
  let count = 0;
  for await (const _ of db.keys({ gte: prefix, lt: end(prefix) })) count++;
  return count;
};

/**
 * Queued, retrying and dead-lettered deliveries of this node's outbox, for the
 * metrics. Keys only, as delivery bodies can be large; a webhook sends its
 * deliveries one at a time in order, so only the head of its queue can be
 * waiting for a retry, and that head is the one value read per webhook.
 */
export const outboxFigures = async (db: Db): Promise<OutboxFigures> => {
  let queued = 0;
  let retrying = 0;
  let webhook = "";
  for await (const key of db.keys({ gte: QUEUE, lt: end(QUEUE) })) {
    queued++;
    const id = (key as string).slice(QUEUE.length, (key as string).lastIndexOf("!"));
    if (id === webhook) continue;
    webhook = id;
    const head = (await db.get(key as string)) as QueuedDelivery | undefined;
    if (head !== undefined && head.attempts > 0 && head.next_attempt_at > 0) retrying++;
  }
  return { queued, retrying, dead: await countKeys(db, DEAD) };
};
