/** Gaps between new heads kept to judge a chain's pace: the last this many. */
const KEPT_GAPS = 16;
/** Gaps needed before the pace is trusted (a restart or takeover polls at the base rate until then). */
const MIN_GAPS = 8;
/** Share of kept gaps within `REGULAR_SPREAD` of their median for a chain to count as regular. */
const REGULAR_SHARE = 0.75;
/** How far from the median a gap may be and still count as regular (slot-timed chains: a poll's width). */
const REGULAR_SPREAD = 0.2;
/** The longest wait between polls while the next block is not yet due. */
const MAX_SLOW_MS = 3_000;

/**
 * When a follower at the head asks its node for the head again. Polling every `basePollMs` costs a
 * slot-timed chain dozens of `eth_blockNumber` per block (Ethereum: 48 every 12 s at 250 ms, over
 * 90 % of what ingest asks a provider for), though its blocks come on a schedule. Once a chain's
 * new heads have come at a regular interval, the pacer waits longer right after a block (at most a
 * sixth of the interval, 3 s at most, between polls) and polls at the base rate from a sixth of
 * the interval before the next block is due until it comes, so a block on time is seen as soon as
 * before. A chain whose blocks come irregularly (a devnet mining on demand, a chain of many blocks
 * a second, a node that skipped a head) is polled at the base rate, as is any chain until it has
 * shown its pace over `MIN_GAPS` blocks.
 */
export interface HeadPacer {
  /** The head a poll found at `atMs`: one more than the last is a new block that arrived then. */
  readonly observe: (head: number, atMs: number) => void;
  /** How long to wait at `nowMs` before the next poll, when the last one found nothing to read. */
  readonly delayMs: (nowMs: number) => number;
}

const median = (values: ReadonlyArray<number>): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
};

export const makeHeadPacer = (basePollMs: number): HeadPacer => {
  const gaps: Array<number> = [];
  let lastHead: number | undefined;
  /** When the newest head was first seen. */
  let arrivedAt: number | undefined;
  /** Whether `arrivedAt` is when that block came (it came alone), not when a catch-up ended. */
  let timed = false;

  /** The chain's interval between blocks, when its recent blocks came regularly. */
  const interval = (): number | undefined => {
    if (gaps.length < MIN_GAPS) return undefined;
    const typical = median(gaps);
    const regular = gaps.filter((gap) => Math.abs(gap - typical) <= typical * REGULAR_SPREAD).length;
    return regular >= gaps.length * REGULAR_SHARE ? typical : undefined;
  };

  return {
    observe: (head, atMs) => {
      if (lastHead !== undefined && head === lastHead + 1) {
        if (timed && arrivedAt !== undefined) {
          gaps.push(atMs - arrivedAt);
          if (gaps.length > KEPT_GAPS) gaps.shift();
        }
        arrivedAt = atMs;
        timed = true;
      } else if (lastHead !== undefined && head > lastHead + 1) {
        // Several blocks at once (catching up, a stall): when the newest came is not known.
        arrivedAt = atMs;
        timed = false;
      }
      // A lower head (a lagging endpoint answered) changes nothing: the block it lacks still came.
      if (lastHead === undefined || head > lastHead) lastHead = head;
    },
    delayMs: (nowMs) => {
      const every = interval();
      // Only a pace several polls long is worth slowing for.
      if (every === undefined || !timed || arrivedAt === undefined || every < 4 * basePollMs)
        return basePollMs;
      const lead = Math.max(2 * basePollMs, every / 6);
      const fastFrom = arrivedAt + every - lead;
      if (nowMs >= fastFrom) return basePollMs;
      const slow = Math.min(every / 6, MAX_SLOW_MS);
      return Math.max(basePollMs, Math.round(Math.min(fastFrom - nowMs, slow)));
    },
  };
};
