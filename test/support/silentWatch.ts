import type { KV } from "@nats-io/kv";

/**
 * `real`'s entries until `stalled()`, then nothing, without ending until stopped (as stopping a
 * real watch ends it: its reader's pending `next` then returns); with `ends`, it ends right there
 * instead, as a watch the client library gave up on does.
 */
const stallable = <A>(
  real: AsyncIterable<A> & { stop: () => void },
  stalled: () => boolean,
  ends = false,
) => {
  let stopped: () => void = () => undefined;
  const whenStopped = new Promise<void>((resolve) => {
    stopped = resolve;
  });
  const shown = (async function* () {
    for await (const entry of real) {
      if (stalled()) {
        if (ends) real.stop();
        else await whenStopped;
        return;
      }
      yield entry;
    }
  })();
  return {
    stop: () => {
      real.stop();
      stopped();
    },
    [Symbol.asyncIterator]: () => shown,
  };
};

/** `kv` with its method `name` replaced by `replacement` (given the real bucket). */
const replacingMethod = <K extends keyof KV>(kv: KV, name: K, replacement: (real: KV) => KV[K]): KV =>
  new Proxy(kv, {
    get: (target, property, receiver) =>
      property === name ? replacement(target) : Reflect.get(target, property, receiver),
  });

/** `kv`, each watch it makes passed through `wrap` with how many it made before. */
const wrappingWatches = (
  kv: KV,
  wrap: (real: AsyncIterable<unknown> & { stop: () => void }, opened: number) => unknown,
): KV => {
  let opened = 0;
  return replacingMethod(kv, "watch", (real) => async (...args: Parameters<KV["watch"]>) => {
    const watch = await real.watch(...args);
    return wrap(watch, opened++) as typeof watch;
  });
};

/**
 * The bucket, whose listings after the first end at once with no key and no error, as one whose
 * consumer was lost with a server can.
 */
export const withCutListings = (kv: KV): KV => {
  let listed = 0;
  return replacingMethod(kv, "keys", (real) => async (...args: Parameters<KV["keys"]>) => {
    const keys = await real.keys(...args);
    if (listed++ === 0) return keys;
    keys.stop();
    return (async function* () {})() as unknown as typeof keys;
  });
};

/**
 * The bucket, its watches made (so the server holds their consumers) but showing nothing, up to
 * the `loudFrom`-th (counted from 0; by default every one stays silent): what a follower sees
 * when its watch stalls without ending.
 */
export const withSilentWatches = (kv: KV, loudFrom = Number.POSITIVE_INFINITY): KV =>
  wrappingWatches(kv, (real, opened) => (opened >= loudFrom ? real : stallable(real, () => true)));

/**
 * The bucket, whose first watch shows changes until `stall()` and nothing after, without ending
 * (or, with `ends`, ending at the first change after it); later watches are real: what a follower
 * sees when its watch stalls (or ends) after it started.
 */
export const withStallableWatches = (kv: KV, { ends = false } = {}) => {
  let stalled = false;
  let watches = 0;
  return {
    kv: wrappingWatches(kv, (real, opened) => {
      watches = opened + 1;
      return opened > 0 ? real : stallable(real, () => stalled, ends);
    }),
    stall: () => {
      stalled = true;
    },
    /** How many watches were made (more than one: the follower opened a new one). */
    opened: () => watches,
  };
};

/**
 * The bucket, whose first read of its whole stream (a follower's watch of `>` over a bucket with one
 * value per key) shows messages until `stall()` and nothing after, without ending (or, with `ends`,
 * ending at the first message after it); later reads are real: what a follower sees when its watch
 * stalls (or ends) after it started.
 */
export const withStallableStreamReads = (kv: KV, { ends = false } = {}) => {
  let stalled = false;
  let opened = 0;
  const consumer = <C extends object>(real: C): C =>
    new Proxy(real, {
      get: (target, name, receiver) => {
        const value = Reflect.get(target, name, receiver);
        if (name !== "consume" || typeof value !== "function") return value;
        return async (...args: Array<unknown>) => {
          const messages = await value.apply(target, args);
          return opened++ > 0 ? messages : stallable(messages, () => stalled, ends);
        };
      },
    });
  const bucket = kv as KV & { js: { consumers: { get: (...args: Array<unknown>) => Promise<object> } } };
  const consumers = new Proxy(bucket.js.consumers, {
    get: (target, name, receiver) =>
      name === "get"
        ? async (...args: Array<unknown>) => consumer(await target.get(...args))
        : Reflect.get(target, name, receiver),
  });
  const js = new Proxy(bucket.js, {
    get: (target, name, receiver) => (name === "consumers" ? consumers : Reflect.get(target, name, receiver)),
  });
  const proxied = new Proxy(kv, {
    get: (target, name, receiver) => (name === "js" ? js : Reflect.get(target, name, receiver)),
  });
  return {
    kv: proxied,
    stall: () => {
      stalled = true;
    },
    /** How many whole-stream reads were made (more than one: the follower opened a new one). */
    opened: () => opened,
  };
};

/**
 * The bucket, every watch it makes ending at once, before it shows anything, as when the server
 * ends each watch's consumer as soon as it is made; answers when each watch was made
 * (`performance.now()` times).
 */
export const withEndingWatches = (kv: KV) => {
  const openedAt: Array<number> = [];
  return {
    kv: wrappingWatches(kv, (real) => {
      openedAt.push(performance.now());
      real.stop();
      return real;
    }),
    openedAt: (): ReadonlyArray<number> => openedAt,
  };
};
