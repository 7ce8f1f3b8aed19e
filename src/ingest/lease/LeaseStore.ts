import type { KV } from "@nats-io/kv";
import { Data, Effect, Schema } from "effect";
import { leaderGets } from "../../nats/leaderReads.js";
import { isRevisionConflict } from "../../nats/revisionConflict.js";
import type { Checkpoint } from "../CheckpointStore.js";

const BlockRefSchema = Schema.Struct({
  number: Schema.Number,
  hash: Schema.String,
  parentHash: Schema.String,
});

/**
 * What a chain's lease says: who follows the chain (`null` once its holder let
 * it go) and where the chain stands in CHAIN_EVENTS, written by the holder
 * after every acknowledged publish. `renewed_at` is for people reading the
 * bucket; liveness is judged by the record changing, not by clocks.
 */
export const LeaseRecord = Schema.Struct({
  owner: Schema.NullOr(Schema.String),
  renewed_at: Schema.String,
  checkpoint: Schema.NullOr(
    Schema.Struct({
      window: Schema.Array(BlockRefSchema),
      historyUntil: Schema.Number,
      start: Schema.Number,
      // Every field of Checkpoint: one left out here is dropped by each save and lost on a restart.
      indexedFrom: Schema.optionalWith(Schema.Number, { exact: true }),
      reorgs: Schema.optionalWith(Schema.Number, { exact: true }),
      seq: Schema.optionalWith(Schema.Number, { exact: true }),
      stream: Schema.optionalWith(Schema.String, { exact: true }),
    }),
  ),
});
export type LeaseRecord = typeof LeaseRecord.Type;

/** Compiles only while the record carries every field of Checkpoint (a field left out is lost). */
export type CheckpointFieldsCarried = MustHold<
  [Exclude<keyof Checkpoint, keyof NonNullable<LeaseRecord["checkpoint"]>>] extends [never] ? true : false
>;
type MustHold<T extends true> = T;

const LeaseRecordJson = Schema.parseJson(LeaseRecord);
const decodeRecord = Schema.decodeUnknownSync(LeaseRecordJson);
const encodeRecord = Schema.encodeSync(LeaseRecordJson);

/** A lease record and its revision in the bucket, which every write must name. */
export interface LeaseEntry {
  readonly record: LeaseRecord;
  readonly revision: number;
}

/** A revision-checked write lost the race: someone else wrote the lease since it was read. */
export class LeaseConflict extends Data.TaggedError("LeaseConflict")<{ readonly key: string }> {}

/** The bucket could not be read or written (a broker restarting, a timeout): worth trying again. */
export class LeaseStoreError extends Data.TaggedError("LeaseStoreError")<{
  readonly key: string;
  readonly cause: unknown;
}> {
  override get message(): string {
    return `Lease ${this.key}: ${this.cause instanceof Error ? this.cause.message : String(this.cause)}`;
  }
}

/** Where leases live: reads, and writes that succeed only against the revision they name. */
export interface LeaseStore {
  readonly read: (key: string) => Effect.Effect<LeaseEntry | undefined, LeaseStoreError>;
  /** Writes the first record of `key`; fails with LeaseConflict if one exists. */
  readonly create: (
    key: string,
    record: LeaseRecord,
  ) => Effect.Effect<number, LeaseConflict | LeaseStoreError>;
  /** Replaces the record at `revision`; fails with LeaseConflict if the key moved on. */
  readonly update: (
    key: string,
    record: LeaseRecord,
    revision: number,
  ) => Effect.Effect<number, LeaseConflict | LeaseStoreError>;
}

const write = (key: string, attempt: () => Promise<number>) =>
  Effect.tryPromise({
    try: attempt,
    catch: (cause) =>
      isRevisionConflict(cause) ? new LeaseConflict({ key }) : new LeaseStoreError({ key, cause }),
  });

/**
 * Leases in a KV bucket (`chain_leases`, the outbox partitions' in `webhook_outbox`),
 * revision-checked by JetStream itself. Read from the stream's leader (leaderReads.ts): a standby
 * judges a holder silent by the revision it reads and takes over by writing against that revision,
 * so a direct get answered by a replica that lags (a node restarting or catching up) would name
 * an old revision, every takeover would be refused as a conflict, and a dead holder's lease would
 * go untaken for as long as that replica lags.
 */
export const kvLeaseStore = (kv: KV): LeaseStore => {
  // Set when the user may not read from the leader (a nats.conf from before the grant), told once.
  let denied: string | undefined;
  const get = leaderGets(kv, (message) => {
    denied = message;
  });
  return {
    read: (key) =>
      Effect.tryPromise({
        try: async () => {
          const entry = await get(key);
          if (entry === null || entry.operation !== "PUT") return undefined;
          return { record: decodeRecord(entry.string()), revision: entry.revision };
        },
        catch: (cause) => new LeaseStoreError({ key, cause }),
      }).pipe(
        Effect.tap(() => {
          if (denied === undefined) return Effect.void;
          const message = denied;
          denied = undefined;
          return Effect.logWarning(
            `${message}: leases are read by direct gets, which a lagging replica may answer with an old revision and so hold up a takeover; grant the user STREAM.MSG.GET on the bucket's stream (nats.conf of this version) and restart the process`,
          );
        }),
      ),
    create: (key, record) => write(key, () => kv.create(key, encodeRecord(record))),
    update: (key, record, revision) => write(key, () => kv.update(key, encodeRecord(record), revision)),
  };
};
