import { Lru } from "../../src/lib/Lru.js";
import { median } from "./stats.js";

/** Distinct keys hit, out of the map's entries: a block's or a request's working set. */
const HOT = 1_000;
const HITS = 400_000;

const key = (i: number) => `8453|0x${i.toString(16).padStart(40, "0")}`;

/**
 * Cache hits as the index caches take them: an Lru of `entries` entries, HOT of them hit at
 * random with keys built afresh (as a request builds them), against the same hits on a bare Map of
 * the same entries. Nanoseconds per hit of each, alternating rounds, median of 5.
 */
export const lruHits = (entries: number) => {
  const lru = new Lru<string, number>(entries * 2);
  const map = new Map<string, number>();
  for (let i = 0; i < entries; i++) {
    lru.set(key(i), i);
    map.set(key(i), i);
  }
  const probes = () =>
    Array.from({ length: HITS }, () => key(Math.floor(Math.random() * HOT) * Math.floor(entries / HOT)));
  const time = (get: (k: string) => number | undefined) => {
    const keys = probes();
    const start = performance.now();
    let found = 0;
    for (const k of keys) if (get(k) !== undefined) found++;
    const ns = ((performance.now() - start) / keys.length) * 1e6;
    if (found !== keys.length) throw new Error("a cache hit was missed");
    return ns;
  };
  const onLru: Array<number> = [];
  const onMap: Array<number> = [];
  for (let round = 0; round < 5; round++) {
    onLru.push(time((k) => lru.get(k)));
    onMap.push(time((k) => map.get(k)));
  }
  return { lruNs: median(onLru), mapNs: median(onMap) };
};
