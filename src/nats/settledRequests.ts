import { RequestError, RequestOne, TimeoutError } from "@nats-io/nats-core/internal";

/**
 * The NATS client ends every answered request with `cancel()`, which builds a
 * `RequestError("cancelled")` (a stack trace captured) to reject a promise
 * already settled. Every KV read and write pays it: a visible share of each
 * webhook delivery's CPU. This resolver does what the client's does, minus
 * that error: stop the timer, settle, leave the mux. Installed once, at
 * import; left alone if the client's shape is not the one it was written for.
 */
const proto = RequestOne.prototype as unknown as {
  resolver: (this: Settling, err: Error | null, msg: unknown) => void;
  cancel: unknown;
};

interface Settling {
  readonly timer?: { readonly cancel: () => void };
  readonly ctx?: RequestError;
  readonly deferred: { readonly resolve: (msg: unknown) => void; readonly reject: (err: Error) => void };
  readonly mux: { readonly cancel: (request: Settling) => void };
}

if (typeof proto.resolver === "function" && typeof proto.cancel === "function") {
  proto.resolver = function (this: Settling, err: Error | null, msg: unknown) {
    this.timer?.cancel();
    if (err === null || err === undefined) this.deferred.resolve(msg);
    else if (err instanceof TimeoutError) this.deferred.reject(err);
    else if (this.ctx !== undefined) {
      this.ctx.message = err.message;
      this.ctx.cause = err;
      this.deferred.reject(this.ctx);
    } else this.deferred.reject(new RequestError(err.message, { cause: err }));
    this.mux.cancel(this);
  };
}
