/**
 * A receiver whose answers take this long or longer is slow, ms (SlowReceivers):
 * its webhook's deliveries are stored before they are sent. The notifier waits
 * for the first attempts it makes, so a slow receiver would hold back every
 * webhook's next block.
 */
export const SLOW_RECEIVER_MS = 25;

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
