/** A block's number and its timestamp (unix seconds): all the search reads of a header. */
export interface Header {
  readonly number: number;
  readonly timestamp: number;
}

/** Where the search reads headers: a node (nodeHeaders.ts) or, in tests, a fake chain. */
export interface HeaderSource {
  /**
   * The headers of `refs`, in order, in one round trip: null for a block the node does not serve
   * (pruned, or past its head). `"latest"` is the node's head.
   */
  readonly headers: (refs: ReadonlyArray<number | "latest">) => Promise<ReadonlyArray<Header | null>>;
}

/**
 * The last block whose timestamp is at or before a time:
 * - `block`: that block; `isHead` when the time is at or after the head's timestamp, where the
 *   answer is the head (a later block may still take the same second, so it is the answer as of now);
 * - `beforeGenesis`: the time is earlier than block 0;
 * - `unserved`: the answer is at or below `block`, whose header the node does not serve (a pruned
 *   node), so it cannot be known from this node.
 */
export type BlockAtTime =
  | { readonly kind: "block"; readonly number: number; readonly timestamp: number; readonly isHead: boolean }
  | { readonly kind: "beforeGenesis"; readonly genesisTimestamp: number }
  | { readonly kind: "unserved"; readonly block: number };

/** What one search found, and what it learnt on the way (for a cache of headers). */
export interface SearchOutcome {
  readonly answer: BlockAtTime;
  /** Every header read, the head included. */
  readonly read: ReadonlyArray<Header>;
  /** The head, when the search read it (it does unless `seed.above` was given). */
  readonly head?: Header;
}

/** Headers already known around the time: the highest at or before it, the lowest after it. */
export interface SearchSeed {
  readonly below?: Header | undefined;
  readonly above?: Header | undefined;
}

/**
 * Rounds that may guess by block times alone. From the next one on, every round also reads the
 * midpoint of what is left, so a search ends within `SECANT_ROUNDS + ceil(log2(head + 1))` rounds
 * after the head's, whatever the chain's block times.
 */
export const SECANT_ROUNDS = 3;

/**
 * The guess for the last block at or before `time`, from the line through `p` and `q` (a secant):
 * where that line reaches `time + 1` (the first block after `time`), less one. Aiming past `time`
 * lands on the last of a run of blocks sharing one timestamp (Base at 200 ms blocks: five to a
 * second), not on its first. A timestamp is whole seconds, so a block stamped `s` was made within
 * [s, s + 1): the line is drawn through the middle of that second, which keeps the guess within
 * half a second's blocks of the truth on a dense chain whatever the points' places in their runs.
 */
const secantGuess = (p: Header, q: Header, time: number): number | undefined => {
  if (p.timestamp === q.timestamp || p.number === q.number) return undefined;
  const blocksPerSecond = (q.number - p.number) / (q.timestamp - p.timestamp);
  const x = q.number + (time + 0.5 - q.timestamp) * blocksPerSecond;
  return Number.isFinite(x) ? Math.ceil(x) - 1 : undefined;
};

/** The last two points of `trail` with different timestamps, newest last. */
const lastTwo = (trail: ReadonlyArray<Header>): [Header, Header] | undefined => {
  const q = trail.at(-1);
  if (q === undefined) return undefined;
  for (let i = trail.length - 2; i >= 0; i--) {
    const p = trail[i]!;
    if (p.timestamp !== q.timestamp) return [p, q];
  }
  return undefined;
};

/**
 * The last block with timestamp <= `time`, found by reading the node's headers only (no index),
 * exact at block granularity. Invariant: `below` is the highest header known at or before `time`,
 * `above` the lowest known after it, `floor` the highest block the node served no header for; the
 * answer is `below` once nothing lies between it and `above` (and `floor` is not above `below`).
 *
 * The first round reads the head and block 1 (not block 0: Ethereum's genesis is stamped 1970, and
 * a line from it would aim every first guess next to the head). Each round after reads, in one
 * batch, a secant guess from the two latest points (the head and block 1, then the point of each
 * round nearest the time) and the block after it, so a right guess proves itself in the same
 * round. A round that did not halve what is left, and every round after `SECANT_ROUNDS`, reads the
 * midpoint too. Medians on 1M-block synthetic chains, head round included: 2 s blocks, 2 rounds
 * and 4 headers; 12 s slots with 1 % missed, 3 and 7; five blocks to a second, 4 and 8;
 * Ethereum-like history (genesis stamped 0, Poisson block times, then slots), 6 and 13; random
 * runs of up to nine blocks to a second, 7 and 16 (bisection: 20 rounds). The worst case is
 * `1 + SECANT_ROUNDS + ceil(log2(head + 1))` rounds: 2 headers in the first, at most 3 in each
 * other (4 in the one that also reads block 0).
 *
 * Timestamps are taken as non-decreasing with the number, as every chain's consensus makes them.
 * A null header is taken as pruned history: blocks below it are taken as unserved too, so an
 * answer there is `unserved`, never a guess.
 */
export const searchBlockAtTime = async (
  source: HeaderSource,
  time: number,
  seed: SearchSeed = {},
): Promise<SearchOutcome> => {
  const read: Array<Header> = [];
  let below = seed.below;
  let above = seed.above;
  let floor = -1;
  let head: Header | undefined;
  const learn = (header: Header) => {
    read.push(header);
    if (header.timestamp <= time) {
      if (below === undefined || header.number > below.number) below = header;
    } else if (above === undefined || header.number < above.number) above = header;
  };
  const fetch = async (refs: ReadonlyArray<number | "latest">) => {
    const headers = await source.headers(refs);
    return refs.map((ref, i) => {
      const header = headers[i] ?? null;
      if (header === null) {
        if (ref !== "latest") floor = Math.max(floor, ref);
      } else learn(header);
      return header;
    });
  };

  if (above === undefined) {
    // The head bounds the search from above, block 1 from below (block 0 is read when the time is
    // before block 1: it says whether the time predates the chain).
    const headers = await source.headers(below === undefined ? ["latest", 1] : ["latest"]);
    const latest = headers[0];
    if (latest === null || latest === undefined) throw new Error("the node returned no head block");
    head = latest;
    learn(latest);
    if (latest.timestamp <= time)
      return { answer: { kind: "block", ...pick(latest), isHead: true }, read, head };
    const first = headers[1];
    if (first !== undefined && latest.number >= 1) {
      if (first === null) floor = 1;
      else learn(first);
    }
  }
  const done = (answer: BlockAtTime): SearchOutcome => ({
    answer,
    read,
    ...(head === undefined ? {} : { head }),
  });
  const trail: Array<Header> = [below, above].filter((h): h is Header => h !== undefined);
  let width = Number.POSITIVE_INFINITY;
  for (let round = 1; ; round++) {
    const upper = above as Header;
    if (upper.number === 0) return done({ kind: "beforeGenesis", genesisTimestamp: upper.timestamp });
    const lower = Math.max(below?.number ?? -1, floor);
    if (upper.number - lower <= 1)
      return done(
        below !== undefined && below.number === lower
          ? { kind: "block", ...pick(below), isHead: false }
          : { kind: "unserved", block: floor },
      );
    const probes = new Set<number>();
    // Nothing known below: block 0 says whether the time predates the chain, and anchors guesses.
    if (lower === -1) probes.add(0);
    const pair = lastTwo(trail);
    const guess = pair === undefined ? undefined : secantGuess(pair[0], pair[1], time);
    if (guess !== undefined) {
      const g = Math.min(Math.max(guess, lower), upper.number - 1);
      if (g > lower) probes.add(g);
      if (g + 1 < upper.number) probes.add(g + 1);
    }
    const left = upper.number - lower;
    if (guess === undefined || round > SECANT_ROUNDS || left * 2 > width)
      probes.add(lower + Math.floor(left / 2));
    width = left;
    const got = await fetch([...probes].sort((a, b) => a - b));
    // The point of this round nearest the time: with the last round's, the next secant.
    let best: Header | undefined;
    for (const header of got)
      if (
        header !== null &&
        (best === undefined || Math.abs(header.timestamp - time) < Math.abs(best.timestamp - time))
      )
        best = header;
    if (best !== undefined) trail.push(best);
  }
};

const pick = (header: Header): Header => ({ number: header.number, timestamp: header.timestamp });
