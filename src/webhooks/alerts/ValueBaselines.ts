import type { KV } from "@nats-io/kv";
import type { Baselines } from "./valueChanges.js";

/** A wallet's `value_change_pct` baselines on one chain, by webhook id, then by position key. */
export type WalletBaselines = Readonly<Record<string, Baselines>>;

/** A wallet's baselines and the revision a change must be written against (0: none stored yet). */
export interface StoredBaselines {
  readonly baselines: WalletBaselines;
  readonly revision: number;
}

/**
 * Where the notifier keeps `value_change_pct` baselines. Every watched position has one, so unlike
 * the fired alerts (AlertStates.ts: a handful per chain, one value) they are kept one value per
 * wallet and chain: a block reads and writes only the wallets it evaluates, and 10,000 wallets'
 * baselines are not one value over NATS's message size. Shared by every API process (each plans
 * blocks from the same consumer), written against the revision read, like the alert states.
 */
export interface BaselineStore {
  readonly read: (chainId: number, wallet: string) => Promise<StoredBaselines>;
  /** Writes the wallet's baselines (none: the value is deleted); fails if it changed since `revision`. */
  readonly write: (
    chainId: number,
    wallet: string,
    baselines: WalletBaselines,
    revision: number,
  ) => Promise<void>;
}

/** `v.<chain>.<wallet>` in the `webhook_blocks` bucket: beside the alert states, outside the `e.` sweeps. */
export const baselinesKey = (chainId: number, wallet: string) => `v.${chainId}.${wallet}`;

/**
 * The most one wallet's baselines on a chain may weigh: well inside NATS's default 1 MiB message
 * (about 1,000 baselines at 200-300 bytes each). Every webhook of every team watching the wallet
 * shares the value, so without a bound enough webhooks on one popular wallet would make its write
 * fail, and with it every block of the chain.
 */
export const MAX_WALLET_BASELINE_BYTES = 256 * 1024;

/**
 * The baselines that fit in `maxBytes`: whole webhooks' baselines left out, the largest first (ties
 * by id, so a block planned again leaves out the same). A webhook left out finds its positions
 * first seen at the wallet's next read: measured from the block before, never alerting falsely.
 */
export const fitBaselines = (
  baselines: WalletBaselines,
  maxBytes = MAX_WALLET_BASELINE_BYTES,
): WalletBaselines => {
  const sizes = Object.entries(baselines).map(([id, own]) => ({ id, bytes: JSON.stringify(own).length }));
  let total = JSON.stringify(baselines).length;
  if (total <= maxBytes) return baselines;
  const kept: Record<string, Baselines> = { ...baselines };
  sizes.sort((a, b) => b.bytes - a.bytes || a.id.localeCompare(b.id));
  for (const { id, bytes } of sizes) {
    if (total <= maxBytes) break;
    delete kept[id];
    total -= bytes + id.length + 4;
  }
  return kept;
};

const encoder = new TextEncoder();
const decoder = new TextDecoder();

const isEmpty = (baselines: WalletBaselines) => Object.keys(baselines).length === 0;

/** The baselines in the replicated `webhook_blocks` bucket. */
export const kvBaselines = (kv: KV): BaselineStore => ({
  read: async (chainId, wallet) => {
    const entry = await kv.get(baselinesKey(chainId, wallet));
    if (entry === null) return { baselines: {}, revision: 0 };
    const baselines =
      entry.operation === "PUT" ? (JSON.parse(decoder.decode(entry.value)) as WalletBaselines) : {};
    return { baselines, revision: entry.revision };
  },
  write: async (chainId, wallet, baselines, revision) => {
    const key = baselinesKey(chainId, wallet);
    // A wallet no longer holding watched positions leaves no value behind.
    if (isEmpty(baselines)) {
      if (revision !== 0) await kv.delete(key, { previousSeq: revision });
      return;
    }
    const value = encoder.encode(JSON.stringify(baselines));
    if (revision === 0) await kv.create(key, value);
    else await kv.update(key, value, revision);
  },
});

/** The baselines in memory, for tests of planning without NATS. */
export const memoryBaselines = (): BaselineStore => {
  const held = new Map<string, StoredBaselines>();
  let sequence = 0;
  return {
    read: async (chainId, wallet) =>
      held.get(baselinesKey(chainId, wallet)) ?? { baselines: {}, revision: 0 },
    write: async (chainId, wallet, baselines, revision) => {
      const key = baselinesKey(chainId, wallet);
      if ((held.get(key)?.revision ?? 0) !== revision)
        throw new Error(`value baselines of ${wallet} on chain ${chainId} changed meanwhile`);
      sequence += 1;
      held.set(key, { baselines: isEmpty(baselines) ? {} : baselines, revision: sequence });
    },
  };
};
