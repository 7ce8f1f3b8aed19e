import type { OwedDelivery } from "./StoredDelivery.js";

/**
 * How long the notifier waits for the first attempts of one chain event's
 * deliveries before it stores those still unsettled, ms: a base, plus a little
 * per delivery (a thousand webhooks matched by one block take a while to send
 * even when every receiver is quick).
 */
export const FIRST_ATTEMPT_WAIT_MS = 250;
export const FIRST_ATTEMPT_WAIT_PER_DELIVERY_MS = 1;

/**
 * A receiver that took this long or longer to answer is slow, ms: its
 * webhook's deliveries are stored before they are sent (as they all were
 * before), until one is delivered faster. The notifier waits for the first
 * attempts it makes, so a slow receiver would hold back every webhook's next block.
 */
export const SLOW_RECEIVER_MS = 25;

/** The wait for one event's first attempts. */
export const firstAttemptWaitMs = (deliveries: number) =>
  FIRST_ATTEMPT_WAIT_MS + deliveries * FIRST_ATTEMPT_WAIT_PER_DELIVERY_MS;

interface Unstored {
  readonly value: OwedDelivery;
  readonly settle: () => void;
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

  /** Holds a delivery under `key`; resolves once it is settled. */
  add(key: string, value: OwedDelivery): Promise<void> {
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
    const held = this.#byKey.get(key);
    this.#byKey.delete(key);
    held?.settle();
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
        this.#byKey.delete(key);
        held.settle();
      },
      (error: unknown) => {
        held.storing = undefined;
        throw error;
      },
    );
    held.storing = storing;
    return storing;
  }

  get size(): number {
    return this.#byKey.size;
  }
}

/** Webhooks whose receivers answered slowly lately (SLOW_RECEIVER_MS): theirs are stored first. */
export class SlowReceivers {
  readonly #slow = new Set<string>();

  /** An attempt ended after `latencyMs`: a slow one marks the webhook, a quick delivery clears it. */
  answered(webhookId: string, latencyMs: number, delivered: boolean): void {
    if (latencyMs >= SLOW_RECEIVER_MS) this.#slow.add(webhookId);
    else if (delivered) this.#slow.delete(webhookId);
  }

  /** Its first attempt did not settle in the notifier's wait. */
  timedOut(webhookId: string): void {
    this.#slow.add(webhookId);
  }

  has(webhookId: string): boolean {
    return this.#slow.has(webhookId);
  }

  forget(webhookId: string): void {
    this.#slow.delete(webhookId);
  }
}
