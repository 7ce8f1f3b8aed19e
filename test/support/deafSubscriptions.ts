import type { NatsConnection } from "@nats-io/transport-node";

/**
 * `nc`, whose subscriptions receive nothing while `deafen()` holds, heartbeats and status
 * messages included, while the client goes on waiting on them: what a client sees when a consumer's
 * leader is lost. With `firstOnly`, only the first subscription made through it can be deafened.
 */
export const withDeafSubscriptions = (nc: NatsConnection, { firstOnly = false } = {}) => {
  let deaf = false;
  let made = 0;
  const proxy = new Proxy(nc, {
    get: (target, name) => {
      if (name === "subscribe")
        return (subject: string, options?: Parameters<NatsConnection["subscribe"]>[1]) => {
          const callback = options?.callback;
          if ((firstOnly && made++ > 0) || callback === undefined) return target.subscribe(subject, options);
          if (!firstOnly) made++;
          return target.subscribe(subject, {
            ...options,
            callback: (error, message) => {
              if (!deaf) callback(error, message);
            },
          });
        };
      const value = Reflect.get(target, name, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return {
    nc: proxy,
    deafen: () => {
      deaf = true;
    },
    hear: () => {
      deaf = false;
    },
    /** Subscriptions made through it so far. */
    subscriptions: () => made,
  };
};
