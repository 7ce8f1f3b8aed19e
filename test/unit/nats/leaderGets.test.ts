import { Bucket, type KV } from "@nats-io/kv";
import { describe, expect, it } from "vitest";
import { leaderGets } from "../../../src/nats/leaderReads.js";

/**
 * A bucket with direct gets whose user may not ask the stream's leader (a nats.conf from before
 * the grant): the server refuses a leader's read with a permissions violation. Which reads went
 * where is counted.
 */
const deniedBucket = () => {
  const reads = { leader: 0, direct: 0 };
  const bucket = Object.assign(Object.create(Bucket.prototype) as object, {
    direct: true,
    async get(this: { direct: boolean }, key: string) {
      if (!this.direct) {
        reads.leader++;
        throw new Error('Permissions Violation for Publish to "$JS.API.STREAM.MSG.GET.KV_probe"');
      }
      reads.direct++;
      return key === "absent" ? null : { string: () => "fresh" };
    },
  }) as unknown as KV;
  return { bucket, reads };
};

describe("reads from the leader, or by direct gets where the user may not", () => {
  it("behavior: refused once, every read goes by direct gets from then on, and the refusal is told once", async () => {
    const { bucket, reads } = deniedBucket();
    const told: Array<string> = [];
    const get = leaderGets(bucket, (message) => {
      told.push(message);
    });
    const answers = await Promise.all([get("a"), get("b")]);
    expect(answers.map((a) => a?.string())).toEqual(["fresh", "fresh"]);
    expect(await get("absent")).toBeNull();
    expect(told).toHaveLength(1);
    expect(told[0]).toContain("STREAM.MSG.GET.KV_probe");
    // The two first reads were both asked of the leader; none after.
    expect(reads).toEqual({ leader: 2, direct: 3 });
  });

  it("error: any other failure of a leader's read is the read's, not a reason to read elsewhere", async () => {
    const bucket = Object.assign(Object.create(Bucket.prototype) as object, {
      direct: true,
      async get() {
        throw new Error("TIMEOUT");
      },
    }) as unknown as KV;
    const told: Array<string> = [];
    const get = leaderGets(bucket, (message) => {
      told.push(message);
    });
    await expect(get("a")).rejects.toThrow("TIMEOUT");
    expect(told).toEqual([]);
  });
});
