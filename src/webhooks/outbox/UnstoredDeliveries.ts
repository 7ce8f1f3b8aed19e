import type { OwedDelivery } from "./StoredDelivery.js";

/**
 * How long the notifier waits for the first attempts of one chain event's
 * deliveries before it stores those still unsettled, ms: a base, plus a little
 * per delivery (a thousand webhooks matched by one block take a while to send
 * even when every receiver is quick).
 */
const FIRST_ATTEMPT_WAIT_MS = 250;
const FIRST_ATTEMPT_WAIT_PER_DELIVERY_MS = 1;

/** The wait for one event's first attempts. */
export const firstAttemptWaitMs = (deliveries: number) =>
  FIRST_ATTEMPT_WAIT_MS + deliveries * FIRST_ATTEMPT_WAIT_PER_DELIVERY_MS;

/** How a held delivery was settled: delivered unstored, stored, or let go (its event will be planned again, or its webhook was deleted). */
export type Settled = "delivered" | "stored" | "released";

interface Unstored {
  readonly value: OwedDelivery;
  readonly settle: (how: Settled) => void;
  /** The write storing it, once one started (by its attempt's record, or by the notifier's wait running out). */
  storing?: Promise<void> | undefined;
}

/**
 * Deliveries of the chain event the notifier holds, attempted before they are
 * stored. Until each is delivered or stored ("settled"), the event stays
 * unacknowledged and its block records unwritten, so a crash replays the event
 * and plans them again: the CHAIN_EVENTS stream holds them meanwhile. At most
 * one write stores each (the attempt's failure and the notifier's timeout
 * would otherwise both create the key).
 */
export class UnstoredDeliveries {
  readonly #byKey = new Map<string, Unstored>();

  /** Holds a delivery under `key`; resolves once it is settled, saying how. */
  add(key: string, value: OwedDelivery): Promise<Settled> {
    return new Promise((settle) => this.#byKey.set(key, { value, settle }));
  }

  has(key: string): boolean {
    return this.#byKey.has(key);
  }

  /** The write storing `key` under way, if one is. */
  storing(key: string): Promise<void> | undefined {
    return this.#byKey.get(key)?.storing;
  }

  /** It was delivered: nothing is stored. */
  delivered(key: string): void {
    this.#settle(key, "delivered");
  }

  /** Let go without being stored (see Settled). */
  release(key: string): void {
    this.#settle(key, "released");
  }

  /** Lets go of every delivery held for the webhook (it was deleted); answers their keys. */
  releaseWebhook(webhookId: string): ReadonlyArray<string> {
    const keys = [...this.#byKey]
      .filter(([, held]) => held.value.webhook_id === webhookId)
      .map(([key]) => key);
    for (const key of keys) this.release(key);
    return keys;
  }

  #settle(key: string, how: Settled): void {
    const held = this.#byKey.get(key);
    this.#byKey.delete(key);
    held?.settle(how);
  }

  /**
   * Stores `key` with `write` (given the held value) unless it is settled or a
   * store is already under way, which is then awaited instead. Settled once
   * the write succeeds; a failed write leaves it held, to be stored again.
   */
  store(key: string, write: (value: OwedDelivery) => Promise<void>): Promise<void> {
    const held = this.#byKey.get(key);
    if (held === undefined) return Promise.resolve();
    if (held.storing !== undefined) return held.storing;
    const storing = write(held.value).then(
      () => {
        if (this.#byKey.get(key) === held) this.#byKey.delete(key);
        held.settle("stored");
      },
      (error: unknown) => {
        held.storing = undefined;
        throw error;
      },
    );
    held.storing = storing;
    return storing;
  }
}
