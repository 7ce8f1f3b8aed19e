/** A USD value and the block it was taken at. */
export interface ValueAt {
  readonly usd: number;
  readonly number: number;
  readonly hash: string;
}

/**
 * A watched position's baseline: the USD value its changes are measured from, and the block that
 * set it. A block that changes it keeps what it replaced (`before`, `null`: nothing, the position
 * was first seen), so planning that block again measures from the same place, and a reorg that
 * retracts its alert (`alerted`) puts the old baseline back.
 */
export interface Baseline extends ValueAt {
  readonly before?: ValueAt | null;
  readonly alerted?: true;
}

/** One webhook's baselines of one wallet's positions, by position key (positionIdentity.ts). */
export type Baselines = Readonly<Record<string, Baseline>>;

/** A watched position's USD value at the block; `undefined` while it is unpriced. */
export interface PositionValue {
  readonly key: string;
  readonly usd: number | undefined;
}

/** A position whose value moved by at least the threshold from its baseline at this block. */
export interface ValueCrossing {
  readonly key: string;
  readonly baseline: ValueAt;
  readonly usd: number;
  /** Signed: (usd − baseline) / |baseline| × 100. */
  readonly changePct: number;
}

/**
 * Below this many USD (either sign) a baseline is no base for a percentage: a position worth a
 * fraction of a cent that becomes worth a dollar has not "changed by 10,000 %" in any useful
 * sense. Its baseline is set again, silently, to the new value.
 */
export const MIN_BASELINE_USD = 0.01;

/**
 * The key, in the chain's alert states (AlertStates.ts), that records that the block of `hash` sent
 * `value_change_pct` alerts: one entry per such block, however many alerts (a price move can alert
 * thousands of positions at once), kept while a reorg can take the block away. A reorg drops the
 * entry with the block's other fired states (forgetRemovedAlerts), which is how the baselines its
 * alerts set are known to be retracted.
 */
export const valueAlertBlockKey = (hash: string) => `value_change_pct|${hash}`;

export const isValueAlertBlockKey = (key: string) => key.startsWith("value_change_pct|");

/** A block as a baseline is measured at. */
export interface MeasuredAt {
  readonly number: number;
  readonly hash: string;
  readonly parent_hash: string;
}

/**
 * The baseline `block` is measured from: the stored one, or what it replaced when it was set by
 * this very block (planned again after a crash or a failed write: the same decision is made), or
 * by an alert a reorg has since retracted (`standing` says the alerts of its block no longer do:
 * valueAlertBlockKey). Blocks older than `oldest` can no longer be reorganised: their baselines
 * stand. `undefined`: not seen.
 */
export const effectiveBaseline = (
  stored: Baseline | undefined,
  block: MeasuredAt,
  oldest: number,
  standing: (hash: string) => boolean,
): ValueAt | undefined => {
  if (stored === undefined) return undefined;
  const replaced = stored.before === undefined ? stored : (stored.before ?? undefined);
  if (stored.hash === block.hash) return replaced;
  if (stored.alerted === true && stored.number >= oldest && !standing(stored.hash)) return replaced;
  return stored;
};

const at = (value: ValueAt): ValueAt => ({ usd: value.usd, number: value.number, hash: value.hash });

/**
 * The `value_change_pct` crossings of one webhook's positions of one wallet at `block`, and that
 * webhook's baselines of the wallet after it:
 * - a position first seen is measured from its value at the block before (`before`), so a move in
 *   the very block a wallet is first read still alerts; one that did not exist then (just opened)
 *   takes its value now as baseline, silently;
 * - a position whose value moved from its baseline by `threshold` percent or more alerts, and its
 *   value becomes the baseline; a smaller move leaves the baseline where it is, so slow drift
 *   alerts once it adds up;
 * - an unpriced position keeps its baseline until it is priced again; a position no longer held
 *   (or no longer matching the webhook's filters: not in `values`) loses it;
 * - a baseline under MIN_BASELINE_USD is replaced silently.
 */
export const valueChanges = (input: {
  readonly threshold: number;
  readonly values: ReadonlyArray<PositionValue>;
  readonly stored: Baselines;
  readonly block: MeasuredAt;
  readonly oldest: number;
  /** Whether the `value_change_pct` alerts of the block of `hash` still stand (no reorg took it). */
  readonly standing: (hash: string) => boolean;
  readonly before: (key: string) => number | undefined;
}): { readonly crossings: ReadonlyArray<ValueCrossing>; readonly baselines: Record<string, Baseline> } => {
  const { block } = input;
  const here = { number: block.number, hash: block.hash };
  const next: Record<string, Baseline> = {};
  const crossings: Array<ValueCrossing> = [];
  for (const { key, usd } of input.values) {
    const stored = input.stored[key];
    if (usd === undefined || !Number.isFinite(usd)) {
      if (stored !== undefined) next[key] = stored;
      continue;
    }
    let base = effectiveBaseline(stored, block, input.oldest, input.standing);
    if (base === undefined) {
      const previous = input.before(key);
      if (previous === undefined || !Number.isFinite(previous)) {
        next[key] = { usd, ...here, before: null };
        continue;
      }
      base = { usd: previous, number: block.number - 1, hash: block.parent_hash };
    }
    const size = Math.abs(base.usd);
    if (size < MIN_BASELINE_USD) {
      next[key] = usd === base.usd ? base : { usd, ...here, before: at(base) };
    } else if (Math.abs(usd - base.usd) * 100 >= input.threshold * size) {
      next[key] = { usd, ...here, before: at(base), alerted: true };
      crossings.push({ key, baseline: at(base), usd, changePct: ((usd - base.usd) / size) * 100 });
    } else next[key] = base === stored ? stored : at(base);
  }
  return { crossings, baselines: next };
};

/** Baselines without what only a reorg could need (`before`, `alerted`) once their block is older than `oldest`. */
export const settled = (baselines: Baselines, oldest: number): Record<string, Baseline> =>
  Object.fromEntries(
    Object.entries(baselines).map(([key, b]) => [
      key,
      b.number < oldest && b.before !== undefined ? at(b) : b,
    ]),
  );
