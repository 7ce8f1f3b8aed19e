import { Effect } from "effect";
import type { Db, Operation } from "../../storage/Level.js";
import type { Outbox } from "../outbox/Outbox.js";
import { deliveryOrder } from "../outbox/outboxBucketKeys.js";
import type { QueuedDelivery } from "../outbox/QueuedDelivery.js";
import { end, PREFIX } from "./outboxKeys.js";

const QUEUED = `${PREFIX}q!`;
const DEAD = `${PREFIX}dl!`;

/**
 * Moves deliveries still queued or dead-lettered in this node's LevelDB (where
 * versions before the replicated outbox kept them) into the replicated outbox,
 * ahead of anything queued since (order from their old sequence, stream time
 * 0), then deletes them here. Idempotent: a crash midway moves the rest at the
 * next start, and keys already moved are kept as they are.
 *
 * A migration: it reads what versions before the replicated outbox and shared block records kept
 * in each node's LevelDB, and finds nothing once a node has started on this version. It can go in
 * the first release after 0.1.0, whose notes must then ask every node to start once on 0.1.x first.
 */
export const migrateLocalOutbox = (db: Db, outbox: Outbox) =>
  Effect.tryPromise(async () => {
    const moved: Array<Operation> = [];
    for (const [prefix, dead] of [
      [QUEUED, false],
      [DEAD, true],
    ] as const) {
      const batch: Array<QueuedDelivery> = [];
      for await (const [key, value] of db.iterator({ gte: prefix, lt: end(prefix) })) {
        const old = value as QueuedDelivery;
        batch.push({ ...old, order: deliveryOrder(0, old.seq, 0) });
        moved.push({ type: "del", key: key as string });
      }
      await outbox.enqueue(batch, dead ? "dead" : "queued");
    }
    if (moved.length > 0) await db.batch(moved);
    return moved.length;
  }).pipe(
    Effect.tap((count) =>
      count > 0
        ? Effect.logInfo(`moved ${count} deliveries from this node's outbox into the replicated one`)
        : Effect.void,
    ),
  );
