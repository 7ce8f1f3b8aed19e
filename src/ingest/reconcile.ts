/** The identity of a block in the unfinalised window. */
export interface BlockRef {
  readonly number: number;
  readonly hash: string;
  readonly parentHash: string;
}

/**
 * The unfinalised window: the last blocks published, ascending and contiguous,
 * each `parentHash` equal to the previous block's `hash`. At most `depth` long:
 * a block that many blocks below the tip is taken as final.
 */
export type BlockWindow = ReadonlyArray<BlockRef>;

export type Reconciled =
  /** The block is the next one on the window's chain: publish it. */
  | { readonly kind: "extend" }
  /** Already published (same hash at that height): nothing to do. */
  | { readonly kind: "duplicate" }
  /** Blocks are missing between the tip and this one: fetch `from`..`block.number - 1` first. */
  | { readonly kind: "gap"; readonly from: number }
  /** The block does not build on the window: the chain reorganised; find the common ancestor. */
  | { readonly kind: "fork" };

/**
 * Where `block` stands relative to the window. Pure. An empty window (nothing published yet, or
 * since a skip or a reorg deeper than it) is extended only by `next`, the block due: one after it
 * (a node that answered nothing for `next` but served the block above) leaves a gap, which a
 * later read fills, rather than `next` being left out for good.
 */
export const reconcile = (window: BlockWindow, block: BlockRef, next?: number): Reconciled => {
  const tip = window.at(-1);
  if (tip === undefined)
    return next === undefined || block.number <= next ? { kind: "extend" } : { kind: "gap", from: next };
  if (block.number === tip.number + 1)
    return block.parentHash === tip.hash ? { kind: "extend" } : { kind: "fork" };
  if (block.number > tip.number + 1) return { kind: "gap", from: tip.number + 1 };
  const same = window.find((ref) => ref.number === block.number);
  return same !== undefined && same.hash === block.hash ? { kind: "duplicate" } : { kind: "fork" };
};

/** The window with `block` appended, trimmed to `depth` blocks. */
export const extend = (window: BlockWindow, block: BlockRef, depth: number): BlockWindow => {
  const next = [...window, { number: block.number, hash: block.hash, parentHash: block.parentHash }];
  return next.length > depth ? next.slice(next.length - depth) : next;
};

/**
 * The newest window block that is still canonical, given the node's canonical
 * hash at each height (`canonicalHash`, which may be asked for any window
 * height), and the blocks above it that were reorganised away (highest first).
 * `undefined` when even the oldest window block is gone: a reorg deeper than
 * the window, which the caller treats as a fatal inconsistency. `"unknown"` when
 * the node named no block at a height it was asked (the read failed, or a backend
 * behind the others answered): that height's block may still be canonical, and
 * counting it removed would revert blocks the chain still has.
 */
export const findCommonAncestor = async (
  window: BlockWindow,
  canonicalHash: (number: number) => Promise<string | undefined>,
): Promise<
  { readonly ancestor: BlockRef; readonly removed: ReadonlyArray<BlockRef> } | "unknown" | undefined
> => {
  for (let i = window.length - 1; i >= 0; i--) {
    const candidate = window[i]!;
    const hash = await canonicalHash(candidate.number);
    if (hash === undefined) return "unknown";
    if (hash === candidate.hash) return { ancestor: candidate, removed: window.slice(i + 1).reverse() };
  }
  return undefined;
};

/** The window cut back to (and including) the ancestor. */
export const rewind = (window: BlockWindow, ancestor: BlockRef): BlockWindow =>
  window.filter((ref) => ref.number <= ancestor.number);
