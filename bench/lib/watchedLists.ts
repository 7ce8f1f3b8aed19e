import type { KV } from "@nats-io/kv";
import { encodeList } from "../../src/webhooks/store/addressLists.js";
import { addressesKey } from "../../src/webhooks/store/kvKeys.js";

/** The most addresses one webhook may watch (WEBHOOK_MAX_ADDRESSES' ceiling). */
export const MAX_PER_WEBHOOK = 100_000;

export const benchAddress = (n: number) => `0x${n.toString(16).padStart(40, "0")}`;
export const benchWebhookId = (w: number) => `01900000-0000-7000-8000-${String(w).padStart(12, "0")}`;

/**
 * Stores `size` watched addresses (1..size) over `webhooks` address lists, address n in list
 * n % webhooks, each list written as the store writes it (one KV value per webhook). Answers the
 * seconds it took.
 */
export const fillWatchedLists = async (kv: KV, size: number, webhooks: number): Promise<number> => {
  if (Math.ceil(size / webhooks) > MAX_PER_WEBHOOK)
    throw new Error(
      `${size} addresses over ${webhooks} webhooks exceed ${MAX_PER_WEBHOOK} a webhook: raise BENCH_NOTIFIER_WEBHOOKS`,
    );
  const start = performance.now();
  for (let w = 0; w < webhooks; w++) {
    const list: Array<string> = [];
    // Numeric order of equally padded hex is the store's sorted order.
    for (let n = w === 0 ? webhooks : w; n <= size; n += webhooks) list.push(benchAddress(n));
    if (list.length > 0) await kv.put(addressesKey(benchWebhookId(w)), encodeList(list));
  }
  return (performance.now() - start) / 1000;
};
