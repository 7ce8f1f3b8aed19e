import { type BlockAtTime, type HeaderSource, searchBlockAtTime } from "./blockAtTime.js";
import { FinalHeaders } from "./finalHeaders.js";

/**
 * Final headers kept per chain. A search reads about 10 (25 at worst on a 25M-block chain), so this
 * keeps the paths of a few hundred searches: the offsets clients ask for (24 h, 168 h back) slide
 * by one second a second, and land between headers already read, or next to them.
 */
export const FINAL_HEADERS_PER_CHAIN = 4_096;

/**
 * "The block at a time" for every chain, from the nodes' headers (blockAtTime.ts), through a cache
 * of final headers per chain (finalHeaders.ts). A time between two cached consecutive blocks is
 * answered with no call (a hit); any other starts a search from the cached headers around it (a
 * miss), which then keeps the final headers it read. Headers above the head minus the chain's
 * finality depth are never kept (a reorg may still replace them), nor is an answer at the head, nor
 * what a pruned node would not serve (another endpoint, or the same one later, may). Identical
 * concurrent lookups share one search.
 */
export const makeBlockTimeFinder = (capacityPerChain = FINAL_HEADERS_PER_CHAIN) => {
  const chains = new Map<number, FinalHeaders>();
  const searches = new Map<string, Promise<BlockAtTime>>();
  let hits = 0;
  let misses = 0;

  const find = (
    chainId: number,
    source: HeaderSource,
    time: number,
    finalityDepth: number,
  ): Promise<BlockAtTime> => {
    let headers = chains.get(chainId);
    if (headers === undefined) {
      headers = new FinalHeaders(capacityPerChain);
      chains.set(chainId, headers);
    }
    const seed = headers.around(time);
    if (seed.above?.number === 0) {
      hits++;
      return Promise.resolve({ kind: "beforeGenesis", genesisTimestamp: seed.above.timestamp });
    }
    if (seed.below !== undefined && seed.above !== undefined && seed.above.number === seed.below.number + 1) {
      hits++;
      return Promise.resolve({ kind: "block", ...seed.below, isHead: false });
    }
    const key = `${chainId}|${time}`;
    const running = searches.get(key);
    if (running !== undefined) {
      hits++;
      return running;
    }
    misses++;
    const kept = headers;
    const search = searchBlockAtTime(source, time, seed)
      .then(({ answer, read, head }) => {
        // Without a head read, the search stayed below a cached (so final) header.
        const finalUpTo = head === undefined ? Number.POSITIVE_INFINITY : head.number - finalityDepth;
        for (const header of read) if (header.number <= finalUpTo) kept.add(header);
        return answer;
      })
      .finally(() => searches.delete(key));
    searches.set(key, search);
    return search;
  };

  return { find, lookups: () => ({ hits, misses }) };
};

export type BlockTimeFinder = ReturnType<typeof makeBlockTimeFinder>;
