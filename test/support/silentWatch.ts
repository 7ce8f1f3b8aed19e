import type { KV } from "@nats-io/kv";

/**
 * The bucket, its watches made (so the server holds their consumers) but showing nothing, up to
 * the `loudFrom`-th (counted from 0; by default every one stays silent): what a follower sees
 * when its watch stalls without ending.
 */
export const withSilentWatches = (kv: KV, loudFrom = Number.POSITIVE_INFINITY): KV => {
  let opened = 0;
  return new Proxy(kv, {
    get: (target, name, receiver) =>
      name === "watch"
        ? async (...args: Parameters<KV["watch"]>) => {
            const real = await target.watch(...args);
            if (opened++ >= loudFrom) return real;
            const silent = {
              stop: () => real.stop(),
              [Symbol.asyncIterator]: () => ({ next: () => new Promise<never>(() => undefined) }),
            };
            return silent as unknown as typeof real;
          }
        : Reflect.get(target, name, receiver),
  });
};
