import type { QueuedDelivery } from "../outbox/QueuedDelivery.js";

/** How many deliveries charged but not yet recorded are remembered; the oldest is forgotten first. */
const REMEMBERED = 10_000;

/**
 * Charges each delivered delivery once in this process, even when recording it fails. A delivery
 * is charged when its receiver answers 2xx, before the outbox records it: a record that times out
 * may still have been stored (its done marker then arrives through the watch and the delivery is
 * never sent again), so charging only after a confirmed record missed those. One whose record
 * failed is remembered until a later attempt is recorded as delivered, so sending it again (after
 * failed attempts too) charges nothing more.
 */
export class DeliveryCharges {
  readonly #unrecorded = new Set<string>();

  constructor(private readonly meter: (delivery: QueuedDelivery) => void) {}

  /** The receiver took `delivery`: charge it unless it was charged and is still unrecorded. */
  delivered(delivery: QueuedDelivery): void {
    if (this.#unrecorded.has(delivery.id)) return;
    this.meter(delivery);
    this.#unrecorded.add(delivery.id);
    if (this.#unrecorded.size > REMEMBERED) this.#unrecorded.delete(this.#unrecorded.values().next().value!);
  }

  /** The outbox recorded `delivery` as delivered: nothing about it needs remembering. */
  recorded(delivery: QueuedDelivery): void {
    this.#unrecorded.delete(delivery.id);
  }
}
