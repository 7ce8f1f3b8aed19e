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
 */
export class RequestMux {
  readonly #nc: NatsConnection;
  readonly #prefix: string;
  readonly #pending = new Map<string, Pending>();
  readonly #subscription: Subscription;
  readonly #sweeper: NodeJS.Timeout;
  #next = 0;

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
      this.#nc.publish(subject, data, { reply: this.#prefix + token, headers });
    });
  }

  /** Stops the inbox; requests still waiting fail as closed. */
  close(): void {
    clearInterval(this.#sweeper);
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
