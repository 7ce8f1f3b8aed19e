/** A concentrated-liquidity position a webhook watches, with its pool's tick at the block. */
export interface RangeRead {
  readonly webhookId: string;
  readonly wallet: string;
  /** `<position manager>:<token id>`. */
  readonly position: string;
  readonly tickLower: number;
  readonly tickUpper: number;
  readonly tick: number;
}

/** A position whose pool tick left (`out_of_range`) or re-entered (`in_range`) its range at the block. */
export interface RangeChange {
  readonly read: RangeRead;
  readonly condition: "out_of_range" | "in_range";
}

/**
 * A watched position's range state: whether it was out of range when last seen changing (or first
 * seen), the block of that, and whether that block alerted.
 */
export interface RangeState {
  readonly number: number;
  readonly hash: string;
  readonly out: boolean;
  readonly alerted: boolean;
}

export const rangeAlertKey = (webhookId: string, wallet: string, position: string) =>
  `${webhookId}|${wallet}|${position}|range`;

/** Uniswap's own rule: a position earns fees while `tickLower <= tick < tickUpper`. */
export const inRange = (read: Pick<RangeRead, "tick" | "tickLower" | "tickUpper">): boolean =>
  read.tickLower <= read.tick && read.tick < read.tickUpper;

/**
 * The range changes at `block` and the states after it. A position first seen (its webhook just
 * started watching it) is recorded as it is, without an alert: one already out of range has not
 * left its range. After that, each change of side alerts (`out_of_range`, `in_range`) and is
 * recorded with its block; a change recorded at this very block alerts again (the block planned
 * again after a crash: the same delivery, kept once by the outbox).
 */
export const rangeCrossings = (
  reads: ReadonlyArray<RangeRead>,
  held: Readonly<Record<string, unknown>>,
  block: { readonly number: number; readonly hash: string },
): { readonly changes: ReadonlyArray<RangeChange>; readonly held: Record<string, unknown> } => {
  const next: Record<string, unknown> = { ...held };
  const changes: Array<RangeChange> = [];
  for (const read of reads) {
    const key = rangeAlertKey(read.webhookId, read.wallet, read.position);
    const state = held[key] as RangeState | undefined;
    const out = !inRange(read);
    const change = { read, condition: out ? "out_of_range" : "in_range" } as const;
    if (state === undefined) next[key] = { number: block.number, hash: block.hash, out, alerted: false };
    else if (state.out !== out) {
      next[key] = { number: block.number, hash: block.hash, out, alerted: true };
      changes.push(change);
    } else if (state.hash === block.hash && state.alerted) changes.push(change);
  }
  return { changes, held: next };
};
