import { jetstreamManager } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import { Effect } from "effect";
import { bucketStream, objectStoreStream } from "../nats/JetStreamSetup.js";
import { clearDatabaseExcept } from "../storage/clearExcept.js";
import { levelPath } from "../storage/dataDirDb.js";
import { openFailure } from "../storage/Level.js";
import { OUTBOX_RECORD_PREFIXES } from "../webhooks/migrations/outboxKeys.js";

/**
 * The embedded devnet restarts from its seed every time, so blocks that an
 * earlier run indexed no longer exist. Everything derived from them (ingest
 * checkpoints and indexes in LevelDB, the CHAIN_EVENTS stream, the webhook
 * block records of `webhook_blocks`) is dropped so it is rebuilt from the seeded chain, which takes about a
 * second. The chain leases go too: their checkpoints point into the dropped
 * stream, and so does the index snapshot (its sequences are the dropped stream's; a snapshot
 * also names the stream it was taken against, which guards clusters that are not reset). The webhook outbox in the same LevelDB is kept: its deliveries are
 * owed to receivers whatever happened to the chain. Never used with
 * a CHAINS_CONFIG: real chains keep their history and their derived state.
 * `nc` is the `provision` user's connection: no other user may delete a stream.
 */
export const resetDerivedState = (nc: NatsConnection, dataDir: string) =>
  Effect.gen(function* () {
    // Before the store is opened for the roles: a DATA_DIR another process holds ends start-up here.
    yield* Effect.tryPromise({
      try: () => clearDatabaseExcept(levelPath(dataDir), OUTBOX_RECORD_PREFIXES),
      catch: (error) => openFailure(levelPath(dataDir), error),
    });
    yield* Effect.promise(async () => {
      const jsm = await jetstreamManager(nc);
      await jsm.streams.delete("CHAIN_EVENTS").catch(() => false);
      await jsm.streams.delete(bucketStream("chain_leases")).catch(() => false);
      await jsm.streams.delete(bucketStream("webhook_blocks")).catch(() => false);
      await jsm.streams.delete(objectStoreStream("index_snapshots")).catch(() => false);
    });
    yield* Effect.logInfo("devnet restarted from its seed: chain indexes are rebuilt from it");
  });
