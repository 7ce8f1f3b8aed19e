import { Bucket, type KV } from "@nats-io/kv";

/**
 * The same bucket, its reads answered by the stream's leader. A bucket with direct gets lets any
 * replica answer, and in a cluster a replica may not yet hold a write the leader acknowledged a
 * moment ago: a read that must see every acknowledged write (a key just created, or the listing
 * a follower reads after opening its watch, followBucket.ts) goes here. Costs a hop to the
 * leader, so never on a request's path.
 */
export const leaderReads = (kv: KV): KV => {
  if (!(kv instanceof Bucket) || !kv.direct) return kv;
  const copy = Object.assign(Object.create(Object.getPrototypeOf(kv) as object), kv) as Bucket;
  copy.direct = false;
  return copy;
};

/**
 * `get` from the stream's leader (leaderReads), or, once the user is refused that (a nats.conf from
 * before it was granted STREAM.MSG.GET on the bucket's stream), by direct gets as before, told to
 * `denied` once: a read that works on an old config beats one that never works.
 */
export const leaderGets = (kv: KV, denied: (message: string) => void) => {
  const leader = leaderReads(kv);
  let direct = leader === kv;
  return async (key: string) => {
    if (direct) return kv.get(key);
    try {
      return await leader.get(key);
    } catch (error) {
      if (!(error instanceof Error) || !/permissions violation/i.test(error.message)) throw error;
      if (!direct) denied(error.message);
      direct = true;
      return kv.get(key);
    }
  };
};
