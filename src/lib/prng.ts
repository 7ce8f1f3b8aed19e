/**
 * A deterministic pseudo-random generator (mulberry32): the same seed gives the same sequence, so
 * seeded data (the devnet's price paths, the replay node's blocks) comes out the same every time.
 * Tiny and fast; not for anything secret.
 */
export const prng = (seed: number): (() => number) => {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
};
