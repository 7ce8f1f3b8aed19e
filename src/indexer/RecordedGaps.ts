import type { Db, Operation } from "../storage/Level.js";
import { indexGapKey } from "./indexKeys.js";

/** A chain's blocks the index never applied, spanning every such gap so far. */
export interface IndexGap {
  readonly from: number;
  readonly to: number;
}

/**
 * Each chain's recorded gap (indexGapKey) as the index holds it once the batch being planned is
 * written. Changes are written with that batch, in the same order as the blocks that make them,
 * and told (`written`) only after it: a gap recorded and another filled in one batch end as the
 * last of them says.
 */
export class RecordedGaps {
  readonly #gaps = new Map<number, IndexGap>();
  readonly #changed = new Set<number>();

  /** The gaps `db` holds for `chainIds`. */
  static async read(db: Pick<Db, "get">, chainIds: Iterable<number>): Promise<RecordedGaps> {
    const recorded = new RecordedGaps();
    for (const chainId of chainIds) {
      const gap = (await db.get(indexGapKey(chainId))) as IndexGap | undefined;
      if (gap !== undefined) recorded.#gaps.set(chainId, gap);
    }
    return recorded;
  }

  /** The chain's gap as the index will hold it once the batch being planned is written. */
  of(chainId: number): IndexGap | undefined {
    return this.#gaps.get(chainId);
  }

  /** Adds `from`..`to` to the chain's gap: the span of every gap so far. */
  widen(chainId: number, from: number, to: number): IndexGap {
    const known = this.#gaps.get(chainId);
    const gap: IndexGap =
      known === undefined ? { from, to } : { from: Math.min(known.from, from), to: Math.max(known.to, to) };
    this.#gaps.set(chainId, gap);
    this.#changed.add(chainId);
    return gap;
  }

  /**
   * Block `number` is applied on top of the block before it. When the chain's gap starts there,
   * everything below it is in the index and now so is the block: the gap starts after it, or is
   * gone. A gap is filled so when ingest repairs blocks it stored out of order (a reorg back to the
   * last block in order, then the blocks again, docs/ingestion.md), or when a reorg takes the
   * index back below blocks it jumped over. Left recorded, a filled gap would have every wallet's
   * log scan read the history up to it again, on every worker, for good. A later reorg does not
   * undo this: the blocks that replace the reverted ones are applied in order too.
   */
  fill(chainId: number, number: number): void {
    const gap = this.#gaps.get(chainId);
    if (gap === undefined || gap.from !== number) return;
    if (number >= gap.to) this.#gaps.delete(chainId);
    else this.#gaps.set(chainId, { from: number + 1, to: gap.to });
    this.#changed.add(chainId);
  }

  /** The writes that record every change since the last `written`. */
  writes(): ReadonlyArray<Operation> {
    return [...this.#changed].map((chainId) => {
      const gap = this.#gaps.get(chainId);
      return gap === undefined
        ? { type: "del", key: indexGapKey(chainId) }
        : { type: "put", key: indexGapKey(chainId), value: gap };
    });
  }

  /** The changes are written: answers each changed chain's gap as it now stands, and forgets them. */
  written(): ReadonlyArray<readonly [number, IndexGap | undefined]> {
    const told = [...this.#changed].map((chainId) => [chainId, this.#gaps.get(chainId)] as const);
    this.#changed.clear();
    return told;
  }
}
