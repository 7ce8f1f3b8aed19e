/**
 * Key layout of the webhook notifier's records in the node's LevelDB (prefix
 * `wh!`). The delivery outbox itself is replicated in JetStream
 * (src/webhooks/outbox/); its `q`, `dl`, `st`, `at` and `seq` keys here are
 * what versions before it kept, moved over at start (migrateLocalOutbox.ts).
 * Numbers are zero-padded so key order is numeric order: outbox sequence to 16
 * digits (10^16 deliveries), chain ids and block numbers to 12 (as the indexer).
 *
 * - `wh!seq`                                   -> last outbox sequence used (number)
 * - `wh!q!<webhook>!<seq>`                     -> QueuedDelivery: waiting or retrying, oldest first
 * - `wh!dl!<webhook>!<seq>`                    -> QueuedDelivery: dead-lettered, kept for redelivery
 * - `wh!st!<webhook>`                          -> DeliveryCounters
 * - `wh!at!<webhook>!<seq>`                    -> AttemptRecord (the last RECENT_ATTEMPTS kept)
 *
 * Block records (`wh!blk!`, `wh!pend!`) were kept here too; they now live in the
 * shared `webhook_blocks` bucket (migrateLocalBlockRecords.ts moves them).
 *
 * A migration: it reads what versions before the replicated outbox and shared block records kept
 * in each node's LevelDB, and finds nothing once a node has started on this version. It can go in
 * the first release after 0.1.0, whose notes must then ask every node to start once on 0.1.x first.
 */
const pad = (n: number, width: number) => String(n).padStart(width, "0");

export const PREFIX = "wh!";
export const SEQ_KEY = `${PREFIX}seq`;

export const queueKey = (webhookId: string, seq: number) => `${PREFIX}q!${webhookId}!${pad(seq, 16)}`;
export const queuePrefix = (webhookId: string) => `${PREFIX}q!${webhookId}!`;

export const deadKey = (webhookId: string, seq: number) => `${PREFIX}dl!${webhookId}!${pad(seq, 16)}`;
export const deadPrefix = (webhookId: string) => `${PREFIX}dl!${webhookId}!`;

export const countersKey = (webhookId: string) => `${PREFIX}st!${webhookId}`;

export const attemptKey = (webhookId: string, seq: number) => `${PREFIX}at!${webhookId}!${pad(seq, 16)}`;
export const attemptPrefix = (webhookId: string) => `${PREFIX}at!${webhookId}!`;

/**
 * The old local outbox's records: the sequence, queued and dead-lettered deliveries, counters and
 * recent attempts, until they are moved into the replicated outbox. They are deliveries owed to
 * receivers, not views of a chain, so resetting chain-derived state (the devnet's restart from its
 * seed) keeps them.
 */
export const OUTBOX_RECORD_PREFIXES: ReadonlyArray<string> = [
  SEQ_KEY,
  `${PREFIX}q!`,
  `${PREFIX}dl!`,
  `${PREFIX}st!`,
  `${PREFIX}at!`,
];

/** The upper bound of a prefix scan. */
export const end = (prefix: string) => `${prefix}~`;
