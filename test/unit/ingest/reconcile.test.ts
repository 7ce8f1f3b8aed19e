import { describe, expect, it } from "vitest";
import {
  type BlockRef,
  extend,
  findCommonAncestor,
  reconcile,
  rewind,
} from "../../../src/ingest/reconcile.js";

const ref = (number: number, branch = "a", parentBranch = branch): BlockRef => ({
  number,
  hash: `${branch}${number}`,
  parentHash: `${parentBranch}${number - 1}`,
});
const window = [ref(10), ref(11), ref(12)];

describe("reconcile", () => {
  it("default: the next block on the same chain extends the window", () => {
    expect(reconcile(window, ref(13))).toEqual({ kind: "extend" });
    expect(reconcile([], ref(5))).toEqual({ kind: "extend" });
  });

  it("edge: an empty window takes only the block due: one above it leaves a gap from the block due", () => {
    expect(reconcile([], ref(5), 5)).toEqual({ kind: "extend" });
    // The node answered nothing for block 5 and served block 6.
    expect(reconcile([], ref(6), 5)).toEqual({ kind: "gap", from: 5 });
  });

  it("behavior: a block seen before is a duplicate; a higher one leaves a gap", () => {
    expect(reconcile(window, ref(11))).toEqual({ kind: "duplicate" });
    expect(reconcile(window, ref(15))).toEqual({ kind: "gap", from: 13 });
  });

  it("behavior: a block that does not build on the tip, or replaces a window block, is a fork", () => {
    expect(reconcile(window, ref(13, "b", "b"))).toEqual({ kind: "fork" });
    expect(reconcile(window, ref(12, "b", "a"))).toEqual({ kind: "fork" });
  });

  it("behavior: the window keeps at most `depth` blocks", () => {
    expect(extend(window, ref(13), 3).map((b) => b.number)).toEqual([11, 12, 13]);
  });

  it("behavior: the common ancestor is the newest window block the node still has; the rest are removed, highest first", async () => {
    const canonical = new Map([
      [10, "a10"],
      [11, "a11"],
      [12, "b12"],
    ]);
    const found = await findCommonAncestor(window, async (n) => canonical.get(n));
    if (found === undefined || found === "unknown") throw new Error("no ancestor found");
    expect(found.ancestor.hash).toBe("a11");
    expect(found.removed.map((b) => b.hash)).toEqual(["a12"]);
    expect(rewind(window, found.ancestor).map((b) => b.hash)).toEqual(["a10", "a11"]);
  });

  it("error: a reorg deeper than the window has no ancestor", async () => {
    expect(await findCommonAncestor(window, async () => "zzz")).toBeUndefined();
  });

  it("error: a height the node names no block for (a failed read, a backend behind) leaves the ancestor unknown, never removes the blocks below it", async () => {
    const canonical = new Map([
      [10, "a10"],
      [12, "b12"],
    ]);
    expect(await findCommonAncestor(window, async (n) => canonical.get(n))).toBe("unknown");
  });
});
