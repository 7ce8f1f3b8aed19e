import { Effect } from "effect";
import type { Db, Operation } from "../../storage/Level.js";
import type { BlockEvents } from "../notifier/BlockEvents.js";
import type { BlockRecordStore } from "../notifier/BlockRecords.js";

/**
 * Where versions before the shared block records kept them, in each node's LevelDB.
 *
 * A migration: it reads what versions before the replicated outbox and shared block records kept
 * in each node's LevelDB, and finds nothing once a node has started on this version. It can go in
 * the first release after 0.1.0, whose notes must then ask every node to start once on 0.1.x first.
 */
const LOCAL_BLOCKS = "wh!blk!";
const LOCAL_PENDING = "wh!pend!";

interface LocalBlock {
  readonly chainId: number;
  readonly number: number;
  readonly hash: string;
  released: boolean;
  readonly events: Array<BlockEvents>;
}

/**
 * Moves the block records this node kept in its LevelDB into the shared
 * `webhook_blocks` bucket, so a block it planned still has its deliveries
 * released on confirmation, or retracted by a reorg, whichever node plans the
 * later event. Blocks the bucket already lists are left as they are. Then the
 * local records go. Idempotent: a crash midway moves the rest at the next start.
 */
export const migrateLocalBlockRecords = (db: Db, store: BlockRecordStore) =>
  Effect.tryPromise(async () => {
    const blocks = new Map<string, LocalBlock>();
    const moved: Array<Operation> = [];
    for await (const [key, value] of db.iterator({ gte: LOCAL_BLOCKS, lt: `${LOCAL_BLOCKS}~` })) {
      const { released, ...events } = value as BlockEvents & { readonly released: boolean };
      const id = `${events.chain_id}:${events.block_number}:${events.block_hash}`;
      const block = blocks.get(id) ?? {
        chainId: events.chain_id,
        number: events.block_number,
        hash: events.block_hash,
        released: true,
        events: [],
      };
      // A block with any record still waiting is released as a whole later.
      block.released &&= released;
      block.events.push(events);
      blocks.set(id, block);
      moved.push({ type: "del", key: key as string });
    }
    for await (const key of db.keys({ gte: LOCAL_PENDING, lt: `${LOCAL_PENDING}~` }))
      moved.push({ type: "del", key: key as string });
    for (const block of blocks.values()) {
      const before = await store.read(block.chainId);
      if (before.blocks.some((b) => b.number === block.number && b.hash === block.hash)) continue;
      await store.write({
        chainId: block.chainId,
        revision: before.revision,
        kept: before.blocks,
        added: { number: block.number, hash: block.hash, released: block.released, events: block.events },
        dropped: [],
      });
    }
    if (moved.length > 0) await db.batch(moved);
    return blocks.size;
  }).pipe(
    Effect.tap((count) =>
      count > 0
        ? Effect.logInfo(`moved the records of ${count} blocks from this node's LevelDB into webhook_blocks`)
        : Effect.void,
    ),
  );
