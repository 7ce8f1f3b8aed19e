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
 * A receiver whose answers take this long or longer is slow, ms (SlowReceivers):
 * its webhook's deliveries are stored before they are sent. The notifier waits
 * for the first attempts it makes, so a slow receiver would hold back every
 * webhook's next block.
 */
export const SLOW_RECEIVER_MS = 25;

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

  get size(): number {
    return this.#byKey.size;
  }
}

/** Most quick deliveries a webhook marked slow again and again needs before its deliveries go first again. */
const MAX_QUICK_NEEDED = 1_024;
/** Weight of the newest attempt in a webhook's running latency. */
const LATENCY_WEIGHT = 0.25;

/**
 * Webhooks whose receivers are slow: their deliveries are stored first. A
 * receiver is found slow when its running latency (each attempt weighted
 * LATENCY_WEIGHT, so one answer delayed by a busy moment here does not count)
 * reaches SLOW_RECEIVER_MS on a slow answer, or when a first attempt outlasts
 * the notifier's wait. Each time it is found slow it needs twice as many quick
 * deliveries in a row as the time before to go first again (up to
 * MAX_QUICK_NEEDED), so a receiver that is quick and slow by turns holds back
 * the notifier ever more rarely.
 */
export class SlowReceivers {
  readonly #byWebhook = new Map<string, { latencyMs: number; strikes: number; quickNeeded: number }>();

  #of(webhookId: string) {
    let held = this.#byWebhook.get(webhookId);
    if (held === undefined) {
      held = { latencyMs: 0, strikes: 0, quickNeeded: 0 };
      this.#byWebhook.set(webhookId, held);
    }
    return held;
  }

  /** An attempt ended after `latencyMs`. */
  answered(webhookId: string, latencyMs: number, delivered: boolean): void {
    const held = this.#of(webhookId);
    held.latencyMs += (latencyMs - held.latencyMs) * LATENCY_WEIGHT;
    if (latencyMs >= SLOW_RECEIVER_MS) {
      if (held.latencyMs >= SLOW_RECEIVER_MS || held.quickNeeded > 0) this.#strike(held);
    } else if (delivered && held.quickNeeded > 0) held.quickNeeded--;
  }

  /** Its first attempt did not settle in the notifier's wait. */
  timedOut(webhookId: string): void {
    this.#strike(this.#of(webhookId));
  }

  #strike(held: { strikes: number; quickNeeded: number }): void {
    // One slow episode is one strike; a slow answer within it starts the run of quick ones again.
    if (held.quickNeeded === 0) held.strikes++;
    held.quickNeeded = Math.min(MAX_QUICK_NEEDED, 2 ** (held.strikes - 1));
  }

  has(webhookId: string): boolean {
    return (this.#byWebhook.get(webhookId)?.quickNeeded ?? 0) > 0;
  }

  forget(webhookId: string): void {
    this.#byWebhook.delete(webhookId);
  }
}
