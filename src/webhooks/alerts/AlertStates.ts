import type { KV } from "@nats-io/kv";
import type { PromiseLog } from "../../lib/promiseLog.js";

/** The block an alert was sent at: while it is held, the same condition does not alert again. */
export interface FiredAlert {
  readonly number: number;
  readonly hash: string;
}

/** A chain's fired alerts by alert key (healthCrossings.ts), and the revision a change must be written against. */
export interface ChainAlerts {
  readonly fired: Readonly<Record<string, FiredAlert>>;
  readonly revision: number;
}

/**
 * Where the notifier keeps which position alerts have fired and not yet re-armed, per chain. Every
 * API process plans blocks from the same shared consumer, so this is shared, not per process, and
 * a change is written against the revision read (a change planned over one another node has since
 * written fails, and the block is planned again). Only alerts currently fired are held: a handful
 * however many wallets are watched, so one read per evaluated block serves them all.
 */
export interface AlertStateStore {
  readonly read: (chainId: number) => Promise<ChainAlerts>;
  readonly write: (chainId: number, fired: ChainAlerts["fired"], revision: number) => Promise<void>;
}

/** `a.<chain>` in the `webhook_blocks` bucket: beside the block records, outside their `e.` sweeps. */
export const alertsKey = (chainId: number) => `a.${chainId}`;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Largest alert-state value written, bytes: half NATS's default message size, whatever is watched. */
export const MAX_STATE_BYTES = 512 * 1024;

/**
 * The entries that fit MAX_STATE_BYTES, the most recent blocks kept first. A value too large to
 * store would fail every block's planning and stop the notifier for every webhook; instead the
 * oldest states are forgotten, which at worst sends a health alert again or records a position's
 * range again without an alert.
 */
export const fitToLimit = (
  fired: ChainAlerts["fired"],
  maxBytes = MAX_STATE_BYTES,
): { readonly fired: ChainAlerts["fired"]; readonly dropped: number } => {
  const entries = Object.entries(fired);
  let size = 12;
  for (const [key, value] of entries) size += key.length + JSON.stringify(value).length + 4;
  if (size <= maxBytes) return { fired, dropped: 0 };
  const kept: Record<string, FiredAlert> = {};
  let used = 12;
  const newestFirst = [...entries].sort(([, a], [, b]) => b.number - a.number);
  for (const [key, value] of newestFirst) {
    const bytes = key.length + JSON.stringify(value).length + 4;
    if (used + bytes > maxBytes) break;
    kept[key] = value;
    used += bytes;
  }
  return { fired: kept, dropped: entries.length - Object.keys(kept).length };
};

/** The fired alerts in the replicated `webhook_blocks` bucket. */
export const kvAlertStates = (kv: KV, log?: PromiseLog): AlertStateStore => ({
  read: async (chainId) => {
    const entry = await kv.get(alertsKey(chainId));
    if (entry === null) return { fired: {}, revision: 0 };
    const fired =
      entry.operation === "PUT"
        ? (JSON.parse(decoder.decode(entry.value)) as { fired: ChainAlerts["fired"] }).fired
        : {};
    return { fired, revision: entry.revision };
  },
  write: async (chainId, all, revision) => {
    const { fired, dropped } = fitToLimit(all);
    if (dropped > 0)
      log?.warning(
        `position alerts of chain ${chainId}: ${dropped} oldest alert states forgotten to fit one value`,
      );
    const value = encoder.encode(JSON.stringify({ fired }));
    if (revision === 0) await kv.create(alertsKey(chainId), value);
    else await kv.update(alertsKey(chainId), value, revision);
  },
});

/** The fired alerts in memory, for tests of planning without NATS. */
export const memoryAlertStates = (): AlertStateStore => {
  const chains = new Map<number, ChainAlerts>();
  return {
    read: async (chainId) => chains.get(chainId) ?? { fired: {}, revision: 0 },
    write: async (chainId, fired, revision) => {
      const held = chains.get(chainId)?.revision ?? 0;
      if (held !== revision) throw new Error(`alert states of chain ${chainId} changed meanwhile`);
      chains.set(chainId, { fired, revision: held + 1 });
    },
  };
};
