/**
 * The shapes of chain a replay node serves (reference/real-chains.md §4): how often a block comes,
 * how many transactions it carries, and how often the head is reorganised.
 */
export interface ChainProfile {
  readonly name: string;
  /** Time between blocks; 0 serves every block up to the last at once (a firehose: as fast as it is read). */
  readonly blockTimeMs: number;
  readonly txPerBlock: number;
  /** A reorg of the last 1-3 blocks every this many blocks; 0: never. */
  readonly reorgEvery: number;
  /** Whether `debug_traceBlockByHash` answers (callTracer frames with internal native transfers). */
  readonly traces: boolean;
}

/** Ethereum: a block every 12 s, about 200 transactions and 300 logs. */
export const MAINNET: ChainProfile = {
  name: "mainnet",
  blockTimeMs: 12_000,
  txPerBlock: 200,
  reorgEvery: 0,
  traces: true,
};

/** Base since November 2026: 200 ms blocks at about 300 transactions a second. */
export const BASE: ChainProfile = {
  name: "base",
  blockTimeMs: 200,
  txPerBlock: 60,
  reorgEvery: 0,
  traces: false,
};

/** Base-sized blocks, every one already made: the pipeline reads them as fast as it can. */
export const FIREHOSE: ChainProfile = { ...BASE, name: "firehose", blockTimeMs: 0 };

export const PROFILES: Readonly<Record<string, ChainProfile>> = {
  mainnet: MAINNET,
  base: BASE,
  firehose: FIREHOSE,
};
