import type { BlockRange } from "./ChainRpcError.js";

/** What a refusal said about the range it wants. */
export interface RangeHint {
  readonly limit?: number | undefined;
  readonly suggested?: BlockRange | undefined;
  readonly resultCap?: number | undefined;
}

/** Share of a known result cap the next range aims at, from the density of the last answer. */
const CAP_SHARE = 0.5;
/** Most a range grows in one step when sized from density. */
const MOST_GROWTH = 4;

/** First range asked before anything is known of the node (Ponder's first guess too). */
export const FIRST_LOGS_RANGE = 500;
/** Growth after a range is answered: 5 % (as Ponder grows), at least one block. */
const GROWTH = 1.05;

/**
 * How many blocks one eth_getLogs asks for, learned from the chain's endpoints. A refusal that
 * names a range sets it (reth, Infura, Alchemy); one that names a cap in blocks (QuickNode, geth's
 * --rpc.rangelimit, Coinbase...) also becomes a ceiling that growth never passes again, so a capped
 * provider costs one refusal in all rather than one every few calls; one that names nothing halves
 * the range. Each range answered in full grows it again by 5 %, up to the ceiling, so one dense
 * stretch of blocks does not slow the rest of a backfill. Once a refusal has named the most logs an
 * answer may hold, growth follows the logs answered instead: the next range aims at half the cap at
 * the last answer's density (up to four times larger), so a range cut to a few blocks in one dense
 * stretch is back to its size in a few calls rather than dozens.
 */
export class LogsRangeTuner {
  #size: number;
  #ceiling: number;
  #resultCap: number | undefined;

  constructor(maxLogsRange: number) {
    this.#ceiling = Math.max(1, maxLogsRange);
    this.#size = Math.min(FIRST_LOGS_RANGE, this.#ceiling);
  }

  /** Blocks the next eth_getLogs asks for. */
  get size(): number {
    return this.#size;
  }

  get ceiling(): number {
    return this.#ceiling;
  }

  /** A range of `blocks` blocks was answered with `logs` logs. */
  answered(blocks: number, logs: number): void {
    if (blocks < this.#size) return;
    const steady = Math.max(this.#size + 1, Math.floor(this.#size * GROWTH));
    const next =
      this.#resultCap === undefined
        ? steady
        : Math.max(
            steady,
            Math.min(
              this.#size * MOST_GROWTH,
              Math.floor((blocks * CAP_SHARE * this.#resultCap) / Math.max(1, logs)),
            ),
          );
    this.#size = Math.min(this.#ceiling, next);
  }

  /**
   * A range of `blocks` blocks was refused with `fault`; returns the blocks to ask next from the same
   * start (the suggested range's length when the node named one).
   */
  refused(fault: RangeHint, blocks: number): number {
    if (fault.resultCap !== undefined) this.#resultCap = fault.resultCap;
    if (fault.limit !== undefined) {
      this.#ceiling = Math.max(1, Math.min(this.#ceiling, fault.limit));
      this.#size = Math.min(this.#size, this.#ceiling);
      return Math.min(this.#ceiling, Math.max(1, blocks - 1));
    }
    if (fault.suggested !== undefined) {
      const suggested = fault.suggested.to - fault.suggested.from + 1;
      this.#size = Math.max(1, Math.min(this.#ceiling, suggested));
      return Math.max(1, Math.min(suggested, blocks - 1));
    }
    this.#size = Math.max(1, Math.floor(blocks / 2));
    return this.#size;
  }
}
