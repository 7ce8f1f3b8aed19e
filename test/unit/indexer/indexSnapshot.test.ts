import { Readable } from "node:stream";
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { STREAM_SEQ_KEY } from "../../../src/indexer/Indexer.js";
import { decideRestore, type RestoreSituation } from "../../../src/indexer/snapshot/restoreIndex.js";
import {
  CorruptSnapshot,
  restoreSnapshot,
  snapshotBytes,
} from "../../../src/indexer/snapshot/snapshotFormat.js";
import { memoryDb } from "../../support/indexerBlocks.js";

const snapshot = {
  seq: 500,
  streamCreated: "2026-11-01T00:00:00Z",
  fingerprint: "f1",
  writtenAt: 0,
  bytes: 10,
};
const situation = (over: Partial<RestoreSituation>): RestoreSituation => ({
  applied: 0,
  firstSeq: 1,
  streamCreated: snapshot.streamCreated,
  fingerprint: "f1",
  snapshot,
  ...over,
});

describe("when a worker starts from the stored snapshot", () => {
  it("behavior: an empty index, or one the stream's first message has passed, starts from a snapshot ahead of it", () => {
    expect(decideRestore(situation({}))).toEqual({ restore: true });
    expect(decideRestore(situation({ applied: 120, firstSeq: 300 }))).toEqual({ restore: true });
  });

  it("behavior: an index the stream can still bring up to date keeps replaying", () => {
    expect(decideRestore(situation({ applied: 120, firstSeq: 121 }))).toMatchObject({ restore: false });
    expect(decideRestore(situation({ applied: 120, firstSeq: 1 }))).toMatchObject({ restore: false });
  });

  it("behavior: a snapshot of another stream, of other chains, or not ahead is never used", () => {
    expect(decideRestore(situation({ streamCreated: "2026-11-20T00:00:00Z" }))).toEqual({
      restore: false,
      reason: "the stored snapshot is of an earlier CHAIN_EVENTS stream",
    });
    expect(decideRestore(situation({ fingerprint: "f2" }))).toMatchObject({ restore: false });
    expect(decideRestore(situation({ applied: 600, firstSeq: 900 }))).toEqual({
      restore: false,
      reason: "the stored snapshot is not ahead of this index",
    });
    expect(decideRestore(situation({ snapshot: undefined }))).toEqual({
      restore: false,
      reason: "no snapshot is stored",
    });
  });
});

const collect = async (stream: Readable): Promise<Buffer> => {
  const parts: Array<Buffer> = [];
  for await (const part of stream) parts.push(part as Buffer);
  return Buffer.concat(parts);
};

describe("an index snapshot's bytes", () => {
  it("behavior: the index comes back record for record, other keys untouched, the stream position last", async () => {
    const source = memoryDb();
    await source.batch([
      { type: "put", key: "idx!wt!0xa!000000000001!0xt", value: { block: 5, note: "tab\tand\nnewline" } },
      { type: "put", key: "idx!tm!000000000001!0xt", value: { name: "Ünïcode ✓", decimals: 18 } },
      { type: "put", key: STREAM_SEQ_KEY, value: 42 },
      { type: "put", key: "wh!owed", value: "not the index" },
    ]);
    const taken = await snapshotBytes(source, STREAM_SEQ_KEY);
    // Written after the snapshot was taken: not in it.
    await source.put("idx!wt!0xb!000000000001!0xt", { block: 6 });
    const bytes = await collect(taken.stream);
    expect(taken.seq).toBe(42);
    expect(taken.records()).toBe(3);

    const target = memoryDb();
    await target.batch([
      { type: "put", key: "idx!stale", value: 1 },
      { type: "put", key: "wh!kept", value: "outbox" },
    ]);
    expect(await restoreSnapshot(target, Readable.from([bytes]), STREAM_SEQ_KEY)).toBe(3);
    expect(await target.iterator().all()).toEqual([
      ["idx!seq", 42],
      ["idx!tm!000000000001!0xt", { name: "Ünïcode ✓", decimals: 18 }],
      ["idx!wt!0xa!000000000001!0xt", { block: 5, note: "tab\tand\nnewline" }],
      ["wh!kept", "outbox"],
    ]);
  });

  it("edge: records longer than a chunk come back whole, however the bytes arrive", async () => {
    const source = memoryDb();
    const long = "x".repeat(300_000);
    await source.batch([
      ...[1, 2, 3].map((n) => ({ type: "put" as const, key: `idx!undo!${n}`, value: [long, n] })),
      { type: "put", key: STREAM_SEQ_KEY, value: 9 },
    ]);
    const bytes = await collect((await snapshotBytes(source, STREAM_SEQ_KEY)).stream);
    const dribbled = Array.from({ length: Math.ceil(bytes.length / 97) }, (_, i) =>
      bytes.subarray(i * 97, (i + 1) * 97),
    );
    const target = memoryDb();
    expect(await restoreSnapshot(target, Readable.from(dribbled), STREAM_SEQ_KEY)).toBe(4);
    expect(await target.get("idx!undo!2")).toEqual([long, 2]);
  });

  it("edge: a record longer than the index ever writes is refused as it arrives, not gathered", async () => {
    const target = memoryDb();
    const started = performance.now();
    await expect(
      restoreSnapshot(target, Readable.from([gzipSync(Buffer.alloc(17 * 1024 * 1024, "a"))]), STREAM_SEQ_KEY),
    ).rejects.toThrow(/a record longer than/);
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it("edge: a snapshot whose reader gives up releases the LevelDB snapshot it was read through", async () => {
    const source = memoryDb();
    await source.batch(
      Array.from({ length: 5_000 }, (_, i) => ({ type: "put" as const, key: `idx!k!${i}`, value: i })),
    );
    let closed = false;
    const take = source.snapshot.bind(source);
    (source as { snapshot: unknown }).snapshot = () => {
      const taken = take();
      const close = taken.close.bind(taken);
      taken.close = async () => {
        closed = true;
        return close();
      };
      return taken;
    };
    const { stream } = await snapshotBytes(source, STREAM_SEQ_KEY);
    await new Promise((resolve) => stream.once("data", resolve));
    // As a failed upload does.
    stream.destroy();
    for (let i = 0; i < 100 && !closed; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(closed).toBe(true);
  });

  it("behavior: bytes that are not a snapshot are refused, and leave no stream position behind", async () => {
    const target = memoryDb();
    await expect(
      restoreSnapshot(target, Readable.from([gzipSync("idx!seq\t7\nnot a record\n")]), STREAM_SEQ_KEY),
    ).rejects.toBeInstanceOf(CorruptSnapshot);
    await expect(
      restoreSnapshot(target, Readable.from([gzipSync("idx!a\t1\nidx!seq\t7")]), STREAM_SEQ_KEY),
    ).rejects.toBeInstanceOf(CorruptSnapshot);
    expect(await target.get(STREAM_SEQ_KEY)).toBeUndefined();
  });
});
