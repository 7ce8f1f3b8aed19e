import type { FiredAlert } from "./AlertStates.js";
import type { HealthRead } from "./readHealthFactors.js";

/**
 * How far above its threshold a health factor must rise (5 % of the threshold) before the alert is
 * armed again: a health factor wobbling around the threshold with each price tick alerts once, not
 * at every tick.
 */
export const REARM_MARGIN = 0.05;

/** The health factor at or above which a fired `health_factor_below` alert is armed again. */
export const rearmLevel = (threshold: number): number => threshold * (1 + REARM_MARGIN);

/** One webhook's `health_factor_below` and the wallets it watches on the chain. */
export interface HealthWatch {
  readonly webhookId: string;
  readonly threshold: number;
  readonly wallets: ReadonlyArray<string>;
}

/** An account whose health factor crossed below a webhook's threshold at this block. */
export interface HealthCrossing {
  readonly webhookId: string;
  readonly wallet: string;
  readonly pool: string;
  readonly threshold: number;
  readonly healthFactor: number;
}

/** The key of one alert: a webhook's condition on one wallet's account in one pool. */
export const healthAlertKey = (webhookId: string, wallet: string, pool: string) =>
  `${webhookId}|${wallet}|${pool}|health_factor_below`;

/**
 * The crossings at `block` and the fired alerts after it. An account below its threshold alerts
 * when its alert is armed, and is then held fired at this block; it is armed again once its health
 * factor reaches rearmLevel or its debt is gone. An alert held fired at this very block (the block
 * planned again after a crash or a failed write) alerts again: the delivery it makes has the same
 * webhook-id as the first, so the outbox keeps one, and nothing is lost whichever step failed.
 * Alerts of webhooks not evaluated here are kept as they are.
 */
export const healthCrossings = (
  watches: ReadonlyArray<HealthWatch>,
  reads: ReadonlyArray<HealthRead>,
  fired: Readonly<Record<string, FiredAlert>>,
  block: { readonly number: number; readonly hash: string },
): { readonly crossings: ReadonlyArray<HealthCrossing>; readonly fired: Record<string, FiredAlert> } => {
  const byWallet = new Map<string, Array<HealthRead>>();
  for (const read of reads) {
    const list = byWallet.get(read.wallet);
    if (list === undefined) byWallet.set(read.wallet, [read]);
    else list.push(read);
  }
  // Which webhooks hold fired alerts: an account above its threshold needs its key (to re-arm)
  // only then, so the usual block, with nothing fired, makes no key per account.
  const holding = new Set(Object.keys(fired).map((key) => key.slice(0, key.indexOf("|"))));
  const next: Record<string, FiredAlert> = { ...fired };
  const crossings: Array<HealthCrossing> = [];
  for (const watch of watches) {
    const mayRearm = holding.has(watch.webhookId);
    for (const wallet of watch.wallets)
      for (const read of byWallet.get(wallet) ?? []) {
        const hf = read.healthFactor;
        const below = hf !== null && hf < watch.threshold;
        if (!below && !mayRearm) continue;
        const key = healthAlertKey(watch.webhookId, wallet, read.pool);
        const held = fired[key];
        if (below) {
          if (held !== undefined && held.hash !== block.hash) continue;
          next[key] = { number: block.number, hash: block.hash };
          crossings.push({
            webhookId: watch.webhookId,
            wallet,
            pool: read.pool,
            threshold: watch.threshold,
            healthFactor: hf,
          });
        } else if (held !== undefined && (hf === null || hf >= rearmLevel(watch.threshold))) delete next[key];
      }
  }
  return { crossings, fired: next };
};

/** The fired alerts without those sent at `removedHashes` (blocks a reorg took away): armed again. */
export const withoutBlocks = (
  fired: Readonly<Record<string, FiredAlert>>,
  removedHashes: ReadonlySet<string>,
): Record<string, FiredAlert> =>
  Object.fromEntries(Object.entries(fired).filter(([, at]) => !removedHashes.has(at.hash)));
