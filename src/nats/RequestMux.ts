import { randomBytes } from "node:crypto";
import type { MsgHdrs, NatsConnection, Subscription } from "@nats-io/transport-node";

/** How a request ended when it got no reply. */
export class RequestFailed extends Error {
  constructor(readonly reason: "NoResponders" | "Timeout" | "Closed") {
    super(reason);
  }
}

export interface MuxReply {
  readonly data: Uint8Array;
  readonly headers: MsgHdrs | undefined;
}

interface Pending {
  readonly resolve: (reply: MuxReply) => void;
  readonly reject: (error: RequestFailed) => void;
  readonly deadline: number;
}

/** Deadlines are checked on this period, so a timeout fires up to this late. */
const SWEEP_MS = 25;

/**
 * Request/reply over one wildcard inbox subscription, for the gateway's hot path.
 * nats.js's own `request` allocates Error objects (with stack traces) for every
 * call, which cost more than the round trip itself; here a request is a map
 * entry, a publish and a deadline checked by one shared timer. "No responders" is
 * the server's 503 status message on the inbox (the client announces support for
 * it when connecting), so it is reported at once rather than as a timeout.
 *
 * Requests made in one turn of the event loop (every HTTP request parsed from the
 * sockets that were readable together) are published together right after it, so
 * that they leave in one socket write: nats.js writes once per microtask
 * checkpoint, which for requests arriving on separate sockets is one write each,
 * and that system call was the largest single cost of the gateway path.
 */
export class RequestMux {
  readonly #nc: NatsConnection;
  readonly #prefix: string;
  readonly #pending = new Map<string, Pending>();
  readonly #subscription: Subscription;
  readonly #sweeper: NodeJS.Timeout;
  #next = 0;
  /** Requests waiting for this turn's publish: subject, data, reply subject, headers. */
  #outbox: Array<readonly [string, Uint8Array, string, MsgHdrs]> = [];

  /** `inboxPrefix` is the connection's own (nats.conf lets each user read only its own inboxes). */
  constructor(nc: NatsConnection, inboxPrefix: string) {
    this.#nc = nc;
    this.#prefix = `${inboxPrefix}.${randomBytes(10).toString("hex")}.`;
    this.#subscription = nc.subscribe(`${this.#prefix}*`, {
      callback: (error, msg) => {
        if (error !== null) return;
        const token = msg.subject.slice(this.#prefix.length);
        const pending = this.#pending.get(token);
        if (pending === undefined) return;
        this.#pending.delete(token);
        if (msg.data.length === 0 && msg.headers?.code === 503)
          pending.reject(new RequestFailed("NoResponders"));
        else pending.resolve({ data: msg.data, headers: msg.headers });
      },
    });
    this.#sweeper = setInterval(() => this.#sweep(), SWEEP_MS);
    this.#sweeper.unref();
  }

  request(subject: string, data: Uint8Array, headers: MsgHdrs, timeoutMs: number): Promise<MuxReply> {
    return new Promise((resolve, reject) => {
      if (this.#nc.isClosed() || this.#nc.isDraining()) return reject(new RequestFailed("Closed"));
      const token = (this.#next++).toString(36);
      this.#pending.set(token, { resolve, reject, deadline: Date.now() + timeoutMs });
      if (this.#outbox.length === 0) setImmediate(() => this.#publishAll());
      this.#outbox.push([subject, data, this.#prefix + token, headers]);
    });
  }

  #publishAll() {
    const outbox = this.#outbox;
    this.#outbox = [];
    for (const [subject, data, reply, headers] of outbox) {
      try {
        this.#nc.publish(subject, data, { reply, headers });
      } catch {
        // Closed or draining since the request was made: it fails as closed now, not by its deadline.
        const token = reply.slice(this.#prefix.length);
        const pending = this.#pending.get(token);
        this.#pending.delete(token);
        pending?.reject(new RequestFailed("Closed"));
      }
    }
  }

  /** Stops the inbox; requests still waiting fail as closed. */
  close(): void {
    clearInterval(this.#sweeper);
    this.#outbox = [];
    this.#subscription.unsubscribe();
    for (const pending of this.#pending.values()) pending.reject(new RequestFailed("Closed"));
    this.#pending.clear();
  }

  #sweep() {
    const now = Date.now();
    for (const [token, pending] of this.#pending) {
      if (pending.deadline > now) continue;
      this.#pending.delete(token);
      pending.reject(new RequestFailed("Timeout"));
    }
  }
}
