import type { AddressBook } from "../notifier/AddressBook.js";
import { followsChain } from "../notifier/filters.js";
import type { WebhookRecord } from "../WebhookRecord.js";
import type { PositionWatcher } from "./positionAlerts.js";

/**
 * The active `positions` webhooks following a chain, with their wallets, from the address book
 * (which keeps each list's strings once made) and the webhooks' records.
 */
export const positionWatchers =
  (
    book: Pick<AddressBook, "webhookIds" | "addressesOf">,
    recordOf: (id: string) => WebhookRecord | undefined,
  ) =>
  (chainId: number): ReadonlyArray<PositionWatcher> =>
    book.webhookIds().flatMap((id) => {
      const record = recordOf(id);
      return record !== undefined &&
        record.type === "positions" &&
        record.active &&
        followsChain(record, chainId)
        ? [{ record, wallets: book.addressesOf(id) }]
        : [];
    });
