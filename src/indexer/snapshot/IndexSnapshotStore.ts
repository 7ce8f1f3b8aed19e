import { Readable } from "node:stream";
import type { ObjectInfo, ObjectStore } from "@nats-io/obj";
import { isRevisionConflict } from "../../nats/revisionConflict.js";
import type { Db } from "../../storage/Level.js";
import { STREAM_SEQ_KEY } from "../Indexer.js";
import { snapshotBytes } from "./snapshotFormat.js";

/** The one object of the `index_snapshots` store: the latest snapshot of an API worker's index. */
export const SNAPSHOT_OBJECT = "index";

/** Chunks of 1 MiB (the server's max_payload clamps it): few round trips per snapshot. */
const CHUNK_BYTES = 1024 * 1024;

/** What a stored snapshot is of, from its object's metadata. */
export interface SnapshotInfo {
  /** The CHAIN_EVENTS sequence of the last message the index had applied. */
  readonly seq: number;
  /** When CHAIN_EVENTS was created: sequences of a recreated stream mean other messages. */
  readonly streamCreated: string;
  /** indexFingerprint of the writer's chains. */
  readonly fingerprint: string;
  /** When it was written (ms). */
  readonly writtenAt: number;
  /** Gzipped bytes. */
  readonly bytes: number;
}

/** What a snapshot is taken against, so a worker knows whether it may start from it. */
export interface SnapshotBasis {
  readonly streamCreated: string;
  readonly fingerprint: string;
}

const describe = (info: ObjectInfo): SnapshotInfo | undefined => {
  const meta = info.metadata ?? {};
  const seq = Number(meta.seq);
  if (info.deleted || !Number.isSafeInteger(seq) || meta.stream_created === undefined) return undefined;
  return {
    seq,
    streamCreated: meta.stream_created,
    fingerprint: meta.fingerprint ?? "",
    writtenAt: Date.parse(info.mtime),
    bytes: info.size,
  };
};

/** What the store holds: the snapshot's description (undefined: none), and the revision a write must name. */
export interface StoredSnapshot {
  readonly snapshot: SnapshotInfo | undefined;
  /** 0 when the object was never written. */
  readonly revision: number;
  /** The stored object version's id, which names the subject of its chunks (whatever its metadata). */
  readonly nuid: string | undefined;
}

/** The stored snapshot's description, and its object's revision. */
export const readSnapshotInfo = async (store: ObjectStore): Promise<StoredSnapshot> => {
  const info = await store.info(SNAPSHOT_OBJECT);
  return info === null
    ? { snapshot: undefined, revision: 0, nuid: undefined }
    : { snapshot: describe(info), revision: info.revision, nuid: info.deleted ? undefined : info.nuid };
};

/** Another worker wrote a snapshot since this one read the store's: this write is dropped. */
export class SnapshotRace extends Error {}

/**
 * The index was applied from another CHAIN_EVENTS than the one a snapshot would be labelled with
 * (the stream was made again while this worker ran): its position means other messages there.
 */
export class SnapshotOfOtherStream extends Error {}

/**
 * Stores the index as it stands now as the snapshot, replacing the one at `previousRevision` (0:
 * none). The write is revision-checked on the object's metadata: a worker that raced another and
 * lost has its chunks purged by the store client, so nothing is left behind.
 */
export const writeSnapshot = async (
  store: ObjectStore,
  db: Db,
  basis: SnapshotBasis,
  previousRevision: number,
): Promise<{ readonly info: SnapshotInfo; readonly records: number }> => {
  const { seq, appliedFrom, stream, records } = await snapshotBytes(db, STREAM_SEQ_KEY);
  if (appliedFrom !== basis.streamCreated) {
    stream.destroy();
    throw new SnapshotOfOtherStream(
      `the index was applied from ${appliedFrom === undefined ? "a CHAIN_EVENTS it has no record of" : `the CHAIN_EVENTS created ${appliedFrom}`}, not the one created ${basis.streamCreated}`,
    );
  }
  try {
    const info = await store.put(
      {
        name: SNAPSHOT_OBJECT,
        description:
          "a recent snapshot of an API worker's index; workers with an empty DATA_DIR start from it",
        options: { max_chunk_size: CHUNK_BYTES },
        metadata: {
          seq: String(seq),
          stream_created: basis.streamCreated,
          fingerprint: basis.fingerprint,
        },
      },
      Readable.toWeb(stream) as ReadableStream<Uint8Array>,
      { previousRevision },
    );
    return { info: describe(info)!, records: records() };
  } catch (error) {
    stream.destroy();
    if (isRevisionConflict(error)) throw new SnapshotRace("another worker wrote a snapshot first");
    throw error;
  }
};

/**
 * The stored snapshot's bytes and description, or undefined when there is none. The bytes come
 * through a consumer that ends only once the object's last chunk arrives: read them through
 * untilStalled, and cancel them when they are not read.
 */
export const readSnapshot = async (
  store: ObjectStore,
): Promise<{ readonly info: SnapshotInfo; readonly data: ReadableStream<Uint8Array> } | undefined> => {
  const result = await store.get(SNAPSHOT_OBJECT);
  if (result === null) return undefined;
  const info = describe(result.info);
  if (info === undefined) {
    await result.data.cancel();
    return undefined;
  }
  return { info, data: result.data };
};

/** No chunk of a snapshot came for a while: its download is given up. */
export class SnapshotStalled extends Error {}

/**
 * The chunks of `data`, failing with SnapshotStalled when `stallMs` pass without one after it is
 * asked for the next (the time its reader spends on a chunk does not count). The store client's
 * download ends only on the object's last chunk, and a snapshot replaced meanwhile has its chunks
 * purged: that end never comes. Cancels `data` (stopping its consumer) however it ends.
 */
export async function* untilStalled(
  data: ReadableStream<Uint8Array>,
  stallMs: number,
): AsyncGenerator<Uint8Array> {
  const reader = data.getReader();
  try {
    for (;;) {
      const next = await withinMs(reader.read(), stallMs);
      if (next.done) return;
      yield next.value;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

const withinMs = <A>(promise: Promise<A>, ms: number): Promise<A> => {
  let timer: NodeJS.Timeout | undefined;
  const stalled = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new SnapshotStalled(`no chunk of the index snapshot came for ${ms / 1000} s`)),
      ms,
    );
  });
  return Promise.race([promise, stalled]).finally(() => clearTimeout(timer));
};
