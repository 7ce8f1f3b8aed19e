import { randomBytes } from "node:crypto";
import type { KV } from "@nats-io/kv";
import { Effect, Either } from "effect";
import { normaliseAddresses } from "../../src/webhooks/addressList.js";
import type { AddressBook } from "../../src/webhooks/notifier/AddressBook.js";
import { makeSecretSealer } from "../../src/webhooks/secrets/secretSealing.js";
import * as WebhookStore from "../../src/webhooks/WebhookStore.js";
import { webhookRecord } from "../../test/support/webhookRecordFixture.js";
import { benchAddress, benchWebhookId } from "./watchedLists.js";

/** Addresses the changed webhook keeps throughout, and those added and removed; above every size's range. */
const KEPT = 1_000;
const CHANGED = 100_000;
const FIRST_KEPT = 0x2000_0000;
const FIRST_ADDED = 0x3000_0000;

/** Seconds from `from` until `done()` holds, looked at every millisecond. */
const secondsUntil = async (from: number, done: () => boolean) => {
  while (!done()) await new Promise((resolve) => setTimeout(resolve, 1));
  return (performance.now() - from) / 1000;
};

/** How long one list change took: the store's write (as PATCH/PUT .../addresses makes it), and until the book applied it. */
export interface ChangeTime {
  readonly stored: number;
  readonly applied: number;
}

/**
 * A webhook watching 1,000 addresses, stored through the real store: 100,000 addresses added to
 * it (one revision-checked write of its list), then removed again, each timed until `book` (a
 * notifier's address book on the same bucket) shows the change. The store takes the 101,000 the
 * API would refuse past WEBHOOK_MAX_ADDRESSES (at most 100,000): the cost of 100,000 is the point.
 */
export const timeListChanges = async (webhooks: KV, book: AddressBook) => {
  const store = WebhookStore.make({
    webhooks,
    sealer: makeSecretSealer([randomBytes(32).toString("base64")]),
  });
  const id = benchWebhookId(999_999);
  const record = webhookRecord({ id, team_id: "bench", name: "grows", type: "transactions" });
  const kept = Array.from({ length: KEPT }, (_, i) => benchAddress(FIRST_KEPT + i));
  const added = Array.from({ length: CHANGED }, (_, i) => benchAddress(FIRST_ADDED + i));
  await Effect.runPromise(store.create(record, kept, 1));
  await secondsUntil(performance.now(), () => book.webhooksFor(kept[0]!).length > 0);
  const watched = book.watchedAddresses();
  const change = async (next: ReadonlyArray<string>, done: () => boolean): Promise<ChangeTime> => {
    const start = performance.now();
    await Effect.runPromise(store.changeAddresses("bench", id, () => Either.right(normaliseAddresses(next))));
    const stored = (performance.now() - start) / 1000;
    return { stored, applied: await secondsUntil(start, done) };
  };
  const add = await change([...kept, ...added], () => book.watchedAddresses() === watched + added.length);
  const remove = await change(kept, () => book.watchedAddresses() === watched);
  await Effect.runPromise(store.remove("bench", id));
  return { changed: CHANGED, add, remove };
};
