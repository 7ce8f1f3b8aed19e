import type { Position } from "../contracts/Positions.js";

/**
 * Response order: USD value descending (positions without a value last), then chain id, then
 * type, so the answer is stable for the same state.
 */
export const comparePositions = (a: Position, b: Position): number => {
  const va = a.usd_value ?? -1;
  const vb = b.usd_value ?? -1;
  if (va !== vb) return vb - va;
  if (a.chain_id !== b.chain_id) return a.chain_id - b.chain_id;
  return a.type < b.type ? -1 : a.type > b.type ? 1 : 0;
};

/** `aggregations` of spec 2.3: the USD total and the total per chain (keyed by chain id as a string). */
export const aggregatePositions = (positions: ReadonlyArray<Position>) => {
  const byChain: Record<string, number> = {};
  let total = 0;
  for (const position of positions) {
    const value = position.usd_value ?? 0;
    total += value;
    byChain[String(position.chain_id)] = (byChain[String(position.chain_id)] ?? 0) + value;
  }
  return { total_usd_value: total, total_by_chain: byChain };
};
