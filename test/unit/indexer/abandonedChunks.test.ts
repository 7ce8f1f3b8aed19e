import type { JetStreamManager } from "@nats-io/jetstream";
import { describe, expect, it } from "vitest";
import { purgeAbandonedChunks } from "../../../src/indexer/snapshot/abandonedChunks.js";

/** A store's stream as jsm shows it: chunk subjects with their last chunk's time (or a read that fails). */
const streamOf = (subjects: Record<string, Date | "fails">) => {
  const purged: Array<string> = [];
  const jsm = {
    streams: {
      info: async () => ({
        state: { subjects: Object.fromEntries(Object.keys(subjects).map((s) => [s, 1])) },
      }),
      getMessage: async (_: string, query: { last_by_subj: string }) => {
        const last = subjects[query.last_by_subj];
        if (last === "fails") throw new Error("TIMEOUT");
        return last === undefined ? null : { time: last };
      },
      purge: async (_: string, options: { filter: string }) => {
        purged.push(options.filter);
        return { purged: 1, success: true };
      },
    },
  } as unknown as JetStreamManager;
  return { jsm, purged };
};

describe("chunks of unfinished snapshot uploads", () => {
  const now = Date.parse("2026-12-01T12:00:00Z");
  const old = new Date(now - 3_600_000);

  it("behavior: only chunks no object names and that stopped growing are purged; the stored object's and a growing upload's stay", async () => {
    const { jsm, purged } = streamOf({
      "$O.snap.C.LIVE": old,
      "$O.snap.C.DEAD": old,
      "$O.snap.C.GROWING": new Date(now - 1_000),
    });
    expect(await purgeAbandonedChunks(jsm, "snap", "LIVE", now, 600_000)).toBe(1);
    expect(purged).toEqual(["$O.snap.C.DEAD"]);
  });

  it("error: a chunk subject whose last chunk cannot be read is not purged: the look fails and is tried later", async () => {
    const { jsm, purged } = streamOf({ "$O.snap.C.UNKNOWN": "fails" });
    await expect(purgeAbandonedChunks(jsm, "snap", undefined, now, 600_000)).rejects.toThrow("TIMEOUT");
    expect(purged).toEqual([]);
  });
});
